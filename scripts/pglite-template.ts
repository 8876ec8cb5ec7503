/**
 * Run by `astro build` (server/astro-adapter.mjs, when the build is done): writes the
 * migrated, empty PGlite database that an empty DATA_DIR starts from (db/pglite-template.ts)
 * to dist/pglite-template/pglite-<key>.tar.gz. Astro empties dist/ on every build, so the
 * tarball is also kept in node_modules/.cache/stacktrack/ and made again only when its key
 * (the PGlite version and the migrations) changes.
 *
 *   bun scripts/pglite-template.ts [outDir]
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { buildTemplate, templateFileName, templateKey } from "../db/pglite-template";

const ROOT = resolve(import.meta.dir, "..");
const MIGRATIONS = join(ROOT, "db/migrations");
const CACHE = join(ROOT, "node_modules/.cache/stacktrack");

/** Writes `data` to `path` through a temporary name, so no reader sees half a file. */
function writeWhole(path: string, data: Uint8Array) {
  const partial = `${path}.${process.pid}.partial`;
  writeFileSync(partial, data);
  renameSync(partial, path);
}

export async function writeTemplate(outDir: string): Promise<string> {
  const started = performance.now();
  const name = templateFileName(templateKey(MIGRATIONS));
  const cached = join(CACHE, name);
  mkdirSync(outDir, { recursive: true });
  // Only the current template in the output folder.
  for (const old of readdirSync(outDir)) if (old !== name) rmSync(join(outDir, old), { force: true });
  const target = join(outDir, name);
  let how = "from the cache";
  if (existsSync(cached)) {
    const partial = `${target}.${process.pid}.partial`;
    copyFileSync(cached, partial);
    renameSync(partial, target);
  } else {
    const data = await buildTemplate(MIGRATIONS);
    writeWhole(target, data);
    how = "built";
    try {
      mkdirSync(CACHE, { recursive: true });
      for (const old of readdirSync(CACHE)) if (old.startsWith("pglite-")) rmSync(join(CACHE, old), { force: true });
      writeWhole(cached, data);
    } catch (error) {
      // A read-only node_modules: no cache, the next build makes it again.
      how += ` (not cached: ${error instanceof Error ? error.message : String(error)})`;
    }
  }
  console.log(`PGlite template ${name} ${how} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return target;
}

if (import.meta.main) await writeTemplate(resolve(process.argv[2] ?? join(ROOT, "dist/pglite-template")));
