/**
 * Ids (issue 46 §4): every row id is a positive int4 identity. One schema reads an id from a
 * path segment, one bound checks it, for every route that takes one.
 */
import { z } from "zod";
import { badRequest, notFound } from "./http";

/** The largest id a row can have (int4). */
export const ID_MAX = 2_147_483_647;

/** An id path segment: 1–12 digits, read as a number (which may still be out of range). */
export const idParam = z
  .string()
  .regex(/^\d{1,12}$/)
  .transform(Number);

/** An id as a JSON body carries it: an integer in 1..ID_MAX, `message` when not. */
export const idNumber = (message: string) => z.number({ message }).int().min(1).max(ID_MAX);

const inRange = (id: number) => id >= 1 && id <= ID_MAX;

/**
 * The id a path segment names: a 400 with `invalid` under `field` when it is not an id's digits,
 * a 404 with `missing` when no row can have it (0, or beyond int4).
 */
export function parseIdParam(raw: string, field: string, invalid: string, missing: string): number {
  const read = idParam.safeParse(raw);
  if (!read.success) throw badRequest(invalid, { [field]: [invalid] });
  if (!inRange(read.data)) throw notFound(missing);
  return read.data;
}

/**
 * The id a segment names in its one spelling (no leading zero), or null: for a public link whose
 * every bad form is the same 404 (`/go/{id}`: `/go/01` is not `/go/1`).
 */
export function idOrNull(raw: string): number | null {
  const read = idParam.safeParse(raw);
  return read.success && inRange(read.data) && String(read.data) === raw ? read.data : null;
}
