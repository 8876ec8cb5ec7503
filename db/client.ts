/**
 * The database: PGlite (embedded Postgres in a local folder) when no DATABASE_URL
 * is set, postgres.js against a real server when it is. One set of migrations,
 * applied at open, serves both.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { sql } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { PRODUCT_NAME } from "../src/lib/constants";
import { defaultTemplateDir, seedFromTemplate, type TemplateOutcome } from "./pglite-template";
import { startPgliteCompile } from "./pglite-wasm";
import * as schema from "./schema";

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

/** `read`'s statements in one read-only snapshot: a write committing between them shows in none. */
export const inOneSnapshot = <T>(db: Db, read: (db: Db) => Promise<T>): Promise<T> =>
  db.transaction(read, { isolationLevel: "repeatable read", accessMode: "read only" });

export interface Database {
  db: Db;
  kind: "pglite" | "postgres";
  /** Runs `select 1` within `timeoutMs`; throws when the database does not answer. */
  ping(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
  /**
   * LISTENs on `channel`. `onConnect` runs each time the listening connection is
   * (re)established: notifications sent while it was down are lost, so a caller
   * that caches must start afresh then.
   */
  listen(channel: string, onMessage: (payload: string) => void, onConnect?: () => void): Promise<void>;
  /**
   * Postgres only: replaces the connection pool with a new one and ends the old one at
   * once (its pending queries fail). For a pool left broken by a lost server (see
   * server.ts); LISTENs are taken up again on the new pool.
   */
  reset?(): void;
  /**
   * Postgres only, after an outage: when a fresh connection of its own answers `select 1`
   * within `timeoutMs`, replaces the pool (the old one's queries get 5 s to finish, then it is
   * ended) and resolves true; false while the server does not answer. No connection from the
   * outage is reused: postgres.js can leave one stuck after a restart, its queries never sent.
   */
  recover?(timeoutMs?: number): Promise<boolean>;
  /**
   * PGlite only: how the data directory came to be on this start: "template" (an empty data
   * directory, filled from the build's migrated template), "initdb" (an empty one, created and
   * migrated here; `template` says why the template was not used) or "existing".
   */
  created?: { from: "template" | "initdb" | "existing"; template?: TemplateOutcome };
}

export interface OpenOptions {
  url?: string;
  dataDir: string;
  poolSize?: number;
  /**
   * Postgres only: every statement of the pool runs under this statement_timeout, so none
   * outlives its request by more. Migrations, on their own connection, have none. PGlite has
   * no timer to cancel a statement with.
   */
  statementTimeoutMs?: number;
  /** Called with each SQL statement the app sends (statement counting in tests). */
  onQuery?: (query: string) => void;
  /**
   * PGlite: the folder holding the build's migrated template (db/pglite-template.ts);
   * dist/pglite-template by default. An empty data directory starts from it when it holds
   * the template of these migrations.
   */
  templateDir?: string;
}

export class DataDirLockedError extends Error {
  constructor(dir: string, pid: number) {
    super(
      `The data directory ${dir} is in use by another ${PRODUCT_NAME} process (pid ${pid}). ` +
        "The embedded database cannot be shared between processes: stop that process, " +
        "choose another DATA_DIR, or set DATABASE_URL to use a Postgres server.",
    );
    this.name = "DataDirLockedError";
  }
}

function migrationsFolder(): string {
  const candidates = [
    join(dirname(fileURLToPath(import.meta.url)), "migrations"),
    resolve(process.cwd(), "db/migrations"),
  ];
  const found = candidates.find((dir) => existsSync(join(dir, "meta/_journal.json")));
  if (!found) throw new Error(`Database migrations not found (looked in ${candidates.join(", ")})`);
  return found;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * PGlite has no lock of its own: two processes on one folder silently lose writes.
 * An exclusively created lock file holding our pid keeps a second process out;
 * a lock left by a dead process is taken over.
 */
function acquireDirLock(dir: string): () => void {
  const lockPath = join(dir, "stacktrack.lock");
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(lockPath, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(lockPath, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const pid = Number.parseInt(readFileSync(lockPath, "utf8"), 10);
      if (Number.isInteger(pid) && pid !== process.pid && processAlive(pid)) {
        throw new DataDirLockedError(dir, pid);
      }
      rmSync(lockPath, { force: true });
    }
  }
  throw new Error(`Could not lock the data directory ${dir}`);
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the database did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const logger = (onQuery?: (query: string) => void) =>
  onQuery ? { logQuery: (query: string) => onQuery(query) } : undefined;

export async function openDatabase(options: OpenOptions): Promise<Database> {
  return options.url ? openPostgres(options.url, options) : openPglite(options);
}

async function openPglite(options: OpenOptions): Promise<Database> {
  // Compiling PGlite's WebAssembly overlaps the template's unpacking (db/pglite-wasm.ts).
  const wasm = startPgliteCompile();
  const { PGlite } = await import("@electric-sql/pglite");
  const { drizzle } = await import("drizzle-orm/pglite");
  const { migrate } = await import("drizzle-orm/pglite/migrator");
  // ":memory:" is a throw-away in-memory database (tests); anything else a folder.
  const inMemory = options.dataDir === ":memory:";
  const root = resolve(options.dataDir);
  if (!inMemory) mkdirSync(root, { recursive: true });
  const release = inMemory ? () => {} : acquireDirLock(root);
  try {
    const dataPath = join(root, "pglite");
    const migrations = migrationsFolder();
    let created: NonNullable<Database["created"]> | undefined;
    if (!inMemory) {
      // Issue 17: an empty data directory starts from the build's template (under the lock
      // taken above); the migrations below then find nothing to do, or what is newer.
      if (existsSync(dataPath)) created = { from: "existing" };
      else {
        const template = seedFromTemplate(dataPath, migrations, options.templateDir ?? defaultTemplateDir());
        created = { from: template.used ? "template" : "initdb", template };
      }
    }
    const client = await PGlite.create(inMemory ? undefined : dataPath, { pgliteWasmModule: await wasm });
    const db = drizzle({ client, schema, logger: logger(options.onQuery) }) as unknown as Db;
    await migrate(db as never, { migrationsFolder: migrations });
    let closed = false;
    return {
      db,
      kind: "pglite",
      created,
      ping: (ms = 2000) =>
        withTimeout(
          client.query("select 1").then(() => undefined),
          ms,
        ),
      async listen(channel, onMessage, onConnect) {
        await client.listen(channel, onMessage);
        onConnect?.();
      },
      async close() {
        if (closed) return;
        closed = true;
        await client.close();
        release();
      },
    };
  } catch (error) {
    release();
    throw error;
  }
}

async function openPostgres(url: string, options: OpenOptions): Promise<Database> {
  const { default: postgres } = await import("postgres");
  const { drizzle } = await import("drizzle-orm/postgres-js");
  const { migrate } = await import("drizzle-orm/postgres-js/migrator");
  const common = { onnotice: () => {}, connect_timeout: 3, connection: { application_name: "stacktrack" } };

  // Migrate on one dedicated connection under an advisory lock, so instances
  // starting together against one server do not race each other.
  const admin = postgres(url, { ...common, max: 1 });
  try {
    await admin`select pg_advisory_lock(7265431)`;
    await migrate(drizzle({ client: admin }), { migrationsFolder: migrationsFolder() });
    await admin`select pg_advisory_unlock(7265431)`;
  } finally {
    await admin.end({ timeout: 5 });
  }

  const timeout = options.statementTimeoutMs ?? 5000;
  const newPool = () =>
    postgres(url, {
      ...common,
      connection: { ...common.connection, statement_timeout: timeout },
      max: options.poolSize ?? 10,
      idle_timeout: 30,
    });
  const first = newPool();
  let pg = first;
  // Drizzle holds this stand-in, which always forwards to the current pool, so that
  // reset() can swap pools under it.
  const client = new Proxy(first, {
    get: (_target, prop) => Reflect.get(pg, prop),
    apply: (_target, thisArg, args) => Reflect.apply(pg as unknown as (...a: unknown[]) => unknown, thisArg, args),
  });
  const db = drizzle({ client, schema, logger: logger(options.onQuery) }) as unknown as Db;
  const listeners: [string, (payload: string) => void, (() => void) | undefined][] = [];
  let closed = false;
  /** A new pool for every later query; the old one ends after `graceSeconds` (0: at once, its queries fail). */
  function replace(graceSeconds: number) {
    if (closed) return;
    const old = pg;
    pg = newPool();
    // Drizzle set its type parsers on the first pool's options: the new one needs them too.
    Object.assign(pg.options.parsers, first.options.parsers);
    Object.assign(pg.options.serializers, first.options.serializers);
    void old.end({ timeout: graceSeconds }).catch(() => {});
    for (const [channel, onMessage, onConnect] of listeners) {
      void pg.listen(channel, onMessage, onConnect).catch(() => {});
    }
  }
  return {
    db,
    kind: "postgres",
    async listen(channel, onMessage, onConnect) {
      listeners.push([channel, onMessage, onConnect]);
      await pg.listen(channel, onMessage, onConnect);
    },
    reset: () => replace(0),
    async recover(timeoutMs = 1000) {
      if (closed) return false;
      const probe = postgres(url, { ...common, max: 1, connect_timeout: Math.ceil(timeoutMs / 1000) });
      try {
        await withTimeout(probe`select 1`, timeoutMs);
      } catch {
        return false;
      } finally {
        void probe.end({ timeout: 0 }).catch(() => {});
      }
      replace(5);
      return true;
    },
    ping: (ms = 2000) =>
      withTimeout(
        db.execute(sql`select 1`).then(() => undefined),
        ms,
      ),
    close: () => {
      closed = true;
      return pg.end({ timeout: 10 });
    },
  };
}
