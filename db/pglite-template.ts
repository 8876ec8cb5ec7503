/**
 * A migrated, empty PGlite database made once at build time (scripts/pglite-template.ts), so
 * that the first start on an empty DATA_DIR unpacks it instead of running initdb and every
 * migration (issue 17). It is PGlite's `dumpDataDir("gzip")` tarball named by a hash of the
 * PGlite version and of every migration file, so a template of other migrations is never
 * used; the migrations still run after it, and anything wrong with the file falls back to
 * initdb. docs/database.md, "PGlite".
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { pgliteDistDir } from "./pglite-wasm";

/** The version of the installed PGlite (its package.json; the package does not export it). */
function pgliteVersion(): string {
  // …/node_modules/@electric-sql/pglite/dist → …/pglite/package.json
  const manifest = JSON.parse(readFileSync(join(pgliteDistDir(), "..", "package.json"), "utf8")) as {
    version?: string;
  };
  return manifest.version ?? "unknown";
}

/** The template's key: PGlite's version and every migration file (names and bytes), hashed. */
export function templateKey(migrationsFolder: string): string {
  const hash = createHash("sha256").update(`pglite ${pgliteVersion()}\n`);
  const walk = (dir: string, prefix: string) => {
    const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full, `${prefix}${entry.name}/`);
      else hash.update(`${prefix}${entry.name}\n`).update(readFileSync(full)).update("\n");
    }
  };
  walk(migrationsFolder, "");
  return hash.digest("hex").slice(0, 16);
}

export const templateFileName = (key: string) => `pglite-${key}.tar.gz`;

/** Where the build puts the template: dist/pglite-template of the tree this module is in. */
export function defaultTemplateDir(): string {
  const candidates = [
    resolve(dirname(fileURLToPath(import.meta.url)), "..", "dist", "pglite-template"),
    resolve(process.cwd(), "dist", "pglite-template"),
  ];
  return candidates.find((dir) => existsSync(dir)) ?? (candidates[0] as string);
}

/** Makes the template: a fresh in-memory PGlite, migrated, checkpointed and dumped. */
export async function buildTemplate(migrationsFolder: string): Promise<Uint8Array> {
  const { PGlite } = await import("@electric-sql/pglite");
  const { drizzle } = await import("drizzle-orm/pglite");
  const { migrate } = await import("drizzle-orm/pglite/migrator");
  const client = await PGlite.create();
  try {
    await migrate(drizzle({ client }) as never, { migrationsFolder });
    await client.exec("checkpoint");
    const dump = await client.dumpDataDir("gzip");
    return new Uint8Array(await dump.arrayBuffer());
  } finally {
    await client.close();
  }
}

const decoder = new TextDecoder();
function field(header: Uint8Array, start: number, length: number): string {
  const bytes = header.subarray(start, start + length);
  const end = bytes.indexOf(0);
  return decoder.decode(end < 0 ? bytes : bytes.subarray(0, end));
}

/**
 * Unpacks a gzipped ustar tarball (what `dumpDataDir` writes: regular files and folders)
 * into `target`, which must not exist yet. Anything else in it (links, names leaving the
 * folder, a truncated archive) throws: the caller then falls back to initdb.
 */
export function unpackTemplate(tarGz: Uint8Array, target: string): void {
  const tar = Bun.gunzipSync(tarGz as Uint8Array<ArrayBuffer>);
  mkdirSync(target);
  const made = new Set<string>([target]);
  const makeDir = (dir: string) => {
    if (made.has(dir)) return;
    mkdirSync(dir, { recursive: true });
    made.add(dir);
  };
  let offset = 0;
  let files = 0;
  let ended = false;
  while (offset + 512 <= tar.length) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((byte) => byte === 0)) {
      ended = true; // the end-of-archive blocks
      break;
    }
    const prefix = field(header, 345, 155);
    const name = `${prefix ? `${prefix}/` : ""}${field(header, 0, 100)}`;
    const size = Number.parseInt(field(header, 124, 12).trim() || "0", 8);
    const type = String.fromCharCode(header[156] ?? 0);
    const parts = name.split("/").filter((part) => part !== "" && part !== ".");
    if (parts.length === 0 || parts.includes("..") || !Number.isSafeInteger(size) || size < 0) {
      throw new Error(`unexpected entry in the template: ${JSON.stringify(name)}`);
    }
    const path = join(target, ...parts);
    offset += 512;
    if (type === "5") {
      makeDir(path);
    } else if (type === "0" || type === "\0") {
      if (offset + size > tar.length) throw new Error("the template is truncated");
      makeDir(dirname(path));
      writeFileSync(path, tar.subarray(offset, offset + size));
      files++;
    } else {
      throw new Error(`unexpected entry type ${JSON.stringify(type)} in the template: ${name}`);
    }
    offset += Math.ceil(size / 512) * 512;
  }
  if (!ended) throw new Error("the template is truncated (no end-of-archive marker)");
  if (!existsSync(join(target, "PG_VERSION")) || files === 0) {
    throw new Error("the template holds no Postgres data directory");
  }
}

export type TemplateOutcome =
  | { used: true; file: string }
  | { used: false; reason: "no template" | "failed"; file: string; error?: unknown };

/**
 * Puts the template for these migrations at `dataPath` (which must not exist): unpacked
 * under another name and renamed into place, so a start that dies half-way leaves no half a
 * database for the next one to take as a real one. Returns what happened; never throws.
 */
export function seedFromTemplate(dataPath: string, migrationsFolder: string, templateDir: string): TemplateOutcome {
  let file = join(templateDir, "(unknown)");
  const partial = `${dataPath}.unpacking-${process.pid}`;
  try {
    file = join(templateDir, templateFileName(templateKey(migrationsFolder)));
    if (!existsSync(file)) return { used: false, reason: "no template", file };
    rmSync(partial, { recursive: true, force: true });
    unpackTemplate(readFileSync(file), partial);
    renameSync(partial, dataPath);
    return { used: true, file };
  } catch (error) {
    rmSync(partial, { recursive: true, force: true });
    return { used: false, reason: "failed", file, error };
  }
}
