/**
 * PGlite's WebAssembly (9 MB) compiled ahead of `PGlite.create` (issue 17, start-up): started
 * as early as the process can (server/pglite-early.ts, server.ts's first import) while the
 * app's modules load and the template unpacks, and handed to PGlite by db/client.ts (the same
 * promise). A module that cannot be read or compiled resolves to undefined: PGlite then loads
 * the file itself and says what is wrong.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let compiling: Promise<WebAssembly.Module | undefined> | undefined;

/** The folder of PGlite's entry point (its dist/), which holds pglite.wasm. */
export function pgliteDistDir(): string {
  return dirname(fileURLToPath(import.meta.resolve("@electric-sql/pglite")));
}

/** Starts compiling PGlite's WebAssembly (once per process); the compiled module, or undefined. */
export function startPgliteCompile(): Promise<WebAssembly.Module | undefined> {
  compiling ??= Bun.file(join(pgliteDistDir(), "pglite.wasm"))
    .arrayBuffer()
    .then((bytes) => WebAssembly.compile(bytes))
    .catch(() => undefined);
  return compiling;
}
