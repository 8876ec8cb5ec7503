/**
 * Imported first by server.ts, for its side effect: without DATABASE_URL the app opens PGlite,
 * so its WebAssembly starts compiling now, while the rest of the app's modules load
 * (db/pglite-wasm.ts). With DATABASE_URL set it does nothing.
 */
import { startPgliteCompile } from "../db/pglite-wasm";

if (!process.env.DATABASE_URL?.trim()) void startPgliteCompile();
