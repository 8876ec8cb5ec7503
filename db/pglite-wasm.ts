/**
 * PGlite's WebAssembly (node_modules/@electric-sql/pglite/dist/pglite.wasm, 9 MB), compiled
 * ahead of `PGlite.create` (issue 17, start-up). Compiling it takes about 0.35 s on this
 * machine, most of it on JavaScriptCore's compiler threads: started while the app's modules
 * load and the template unpacks, it is ready, or nearly, when PGlite needs it, instead of
 * PGlite reading and compiling the file itself after everything else.
 *
 * `startPgliteCompile` is called once, as early as the process can (server.ts's first import,
 * src/host/pglite-early.ts), and again by db/client.ts, which gets the same promise. A module
 * that cannot be read or compiled resolves to undefined: PGlite then loads the file itself,
 * as it would without this, and says what is wrong.
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
