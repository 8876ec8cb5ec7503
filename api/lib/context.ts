/**
 * The process-wide state: configuration and the database. Kept on `globalThis`
 * so that `server.ts`, the Astro bundle (which has its own copy of this module)
 * and `astro dev`'s reloads all share one instance, and so one PGlite.
 */
import { openDatabase } from "../../db/client";
import { createAuth } from "../auth/auth";
import { startReminderWorker } from "../reminders/worker";
import { Caches, CHANGES_CHANNEL } from "./cache";
import { clockFromFile } from "./clock";
import { ConfigError, parseConfig } from "./config";
import { log, setLogLevel } from "./log";
import type { AppContext } from "./types";

export type { AppContext } from "./types";

/** A fresh `ctx.instance`: each name made once, on first use, and kept for the context's life. */
export function instanceRegistry(): AppContext["instance"] {
  const made = new Map<string, unknown>();
  return <T>(name: string, make: () => T): T => {
    if (!made.has(name)) made.set(name, make());
    return made.get(name) as T;
  };
}

const KEY = Symbol.for("stacktrack.context");
type Holder = { [KEY]?: Promise<AppContext> };

export interface InitOptions {
  env?: Record<string, string | undefined>;
  onQuery?: (query: string) => void;
}

/** Creates the context (config parsed, database opened and migrated) once per process. */
export function initContext(options: InitOptions = {}): Promise<AppContext> {
  const holder = globalThis as Holder;
  holder[KEY] ??= createContext(options).catch((error) => {
    delete holder[KEY];
    throw error;
  });
  return holder[KEY];
}

/** The context, created on first use (the path `astro dev` takes). */
export const getContext = (): Promise<AppContext> => initContext();

export async function createContext(options: InitOptions = {}): Promise<AppContext> {
  const config = parseConfig(options.env ?? process.env);
  setLogLevel(config.LOG_LEVEL);
  if (config.TEST_CLOCK_FILE) clockFromFile(config.TEST_CLOCK_FILE); // tests only (config refuses it otherwise)
  const database = await openDatabase({
    url: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    poolSize: config.DATABASE_POOL_SIZE,
    statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
    onQuery: options.onQuery,
  });
  const template = database.created?.template;
  if (template && !template.used && template.reason === "failed") {
    log.warn("the migrated database template could not be used; created the database instead", {
      file: template.file,
      error: template.error instanceof Error ? template.error.message : String(template.error),
    });
  }
  log.info("database ready", {
    kind: database.kind,
    ...(database.kind === "pglite" ? { dataDir: config.DATA_DIR, from: database.created?.from } : {}),
  });
  const caches = new Caches({
    profileBytes: config.PROFILE_CACHE_MB * 1024 * 1024,
    imageBytes: config.IMAGE_CACHE_MB * 1024 * 1024,
    userBytes: config.USER_CACHE_MB * 1024 * 1024,
  });
  await database.listen(
    CHANGES_CHANNEL,
    (payload) => caches.applyNotification(payload),
    () => caches.clear(),
  );
  const auth = createAuth(config, database, caches);
  const ctx: AppContext = { config, database, auth, caches, instance: instanceRegistry() };
  startReminderWorker(ctx); // issue 39: this instance's reminder rounds, every REMINDER_TICK_MS (0: off)
  return ctx;
}

export { ConfigError };
