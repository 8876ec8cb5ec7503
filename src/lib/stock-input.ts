/**
 * The input rules of a stock change (issue 40), shared by the API (api/supplements/stock.ts) and the Stock
 * dialog: apart from ./stock.ts so that zod loads with the dialog, not with the dashboard.
 */
import { z } from "zod";
import { PACKS_MAX, STOCK_MAX, STOCK_MESSAGES, STOCK_MIN } from "./stock";

const cents = (value: number) => Math.abs(Math.round(value * 100) - value * 100) < 1e-6;

/**
 * A number of units up to STOCK_MAX with at most 2 decimals, from STOCK_MIN (or zero); null
 * clears it. 1e-9 is not "2 decimals" that round to 0: it is refused (issue 45).
 */
const units = (message: string, zeroAllowed: boolean) =>
  z
    .number({ message })
    .refine((n) => ((zeroAllowed && n === 0) || n >= STOCK_MIN) && n <= STOCK_MAX && cents(n), message)
    .nullable()
    .optional();

/** PUT /api/supplements/{id}/stock: `count` sets the baseline now; null clears a field. */
export const stockInputSchema = z
  .strictObject(
    { unitsPerPack: units(STOCK_MESSAGES.unitsPerPack, false), count: units(STOCK_MESSAGES.count, true) },
    { error: (issue) => (issue.code === "unrecognized_keys" ? STOCK_MESSAGES.unknown : STOCK_MESSAGES.empty) },
  )
  .refine((input) => input.unitsPerPack !== undefined || input.count !== undefined, {
    message: STOCK_MESSAGES.empty,
  });
export type StockInput = z.infer<typeof stockInputSchema>;

/** POST /api/supplements/{id}/refills. */
export const refillInputSchema = z.strictObject(
  {
    packs: z
      .number({ message: STOCK_MESSAGES.packs })
      .int(STOCK_MESSAGES.packs)
      .min(1, STOCK_MESSAGES.packs)
      .max(PACKS_MAX, STOCK_MESSAGES.packs),
  },
  { message: STOCK_MESSAGES.packs },
);
