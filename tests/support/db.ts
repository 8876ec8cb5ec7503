/**
 * A fresh, migrated database for each test (or each e2e run).
 *
 * With TEST_DATABASE_URL (a Postgres 15 server) a template database is migrated once
 * and every call copies it with `CREATE DATABASE … TEMPLATE …` (tens of milliseconds).
 * The template's name carries a hash of the migrations, so a changed migration gets a
 * new template, and test processes starting together migrate it only once (an advisory
 * lock). Without TEST_DATABASE_URL the app's embedded PGlite is used: in memory, or in a
 * fresh temporary folder when `pgliteDir` is asked for (a separate server process).
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { type Db, openDatabase } from "../../db/client";

export interface TestDatabase {
  /** Environment for the app: DATABASE_URL (Postgres) or DATA_DIR (PGlite). */
  env: Record<string, string>;
  /** Removes the database (or the PGlite folder). Safe to call twice. */
  drop(): Promise<void>;
}

export interface TestDatabaseOptions {
  /** Without TEST_DATABASE_URL: a temporary PGlite folder instead of ":memory:". */
  pgliteDir?: boolean;
}

const MIGRATIONS = join(import.meta.dir, "../../db/migrations");
/** Any constant; only test processes take this lock. */
const TEMPLATE_LOCK = 5_316_004;

export const usingPostgres = (): boolean => Boolean(process.env.TEST_DATABASE_URL);

/** The server URL with another database name. */
export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** A short hash of every migration file: a template is rebuilt when any of them changes. */
export function migrationsHash(): string {
  const hash = createHash("sha256");
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else hash.update(entry.name).update(readFileSync(full));
    }
  };
  walk(MIGRATIONS);
  return hash.digest("hex").slice(0, 12);
}

const admin = (url: string) => postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 5 });

let template: Promise<string> | undefined;

/** The migrated template database's name, created by whichever test process gets there first. */
function ensureTemplate(serverUrl: string): Promise<string> {
  template ??= (async () => {
    const name = `st_template_${migrationsHash()}`;
    const sql = admin(serverUrl);
    try {
      await sql`select pg_advisory_lock(${TEMPLATE_LOCK})`;
      const [found] = await sql`select 1 from pg_database where datname = ${name}`;
      if (!found) {
        // Migrate under another name and rename at the end: a run that dies half-way
        // leaves no half-migrated template behind.
        const building = `${name}_building`;
        await sql.unsafe(`drop database if exists ${quote(building)} with (force)`);
        await sql.unsafe(`create database ${quote(building)}`);
        const database = await openDatabase({
          url: withDatabase(serverUrl, building),
          dataDir: ":memory:",
          poolSize: 1,
        });
        await database.close();
        await sql.unsafe(`alter database ${quote(building)} rename to ${quote(name)}`);
      }
      return name;
    } finally {
      await sql`select pg_advisory_unlock(${TEMPLATE_LOCK})`.catch(() => {});
      await sql.end({ timeout: 5 });
    }
  })();
  template.catch(() => {
    template = undefined;
  });
  return template;
}

export async function createTestDatabase(options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    if (!options.pgliteDir) return { env: { DATA_DIR: ":memory:" }, drop: async () => {} };
    const dir = mkdtempSync(join(tmpdir(), "stacktrack-test-"));
    return {
      env: { DATA_DIR: join(dir, "data") },
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }

  const templateName = await ensureTemplate(serverUrl);
  const name = `st_${randomBytes(6).toString("hex")}`;
  const sql = admin(serverUrl);
  try {
    await sql.unsafe(`create database ${quote(name)} template ${quote(templateName)}`);
  } finally {
    await sql.end({ timeout: 5 });
  }
  let dropped = false;
  return {
    env: { DATABASE_URL: withDatabase(serverUrl, name) },
    async drop() {
      if (dropped) return;
      dropped = true;
      const sql = admin(serverUrl);
      try {
        await sql.unsafe(`drop database if exists ${quote(name)} with (force)`);
      } finally {
        await sql.end({ timeout: 5 });
      }
    },
  };
}

/**
 * Writes rows into `database` before a server process opens it: `seed` gets a connection of
 * its own (one, so a PGlite folder is free again), closed when it is done.
 */
export async function seedTestDatabase(database: TestDatabase, seed: (db: Db) => Promise<void>): Promise<void> {
  const handle = await openDatabase({
    url: database.env.DATABASE_URL,
    dataDir: database.env.DATA_DIR ?? ":memory:",
    poolSize: 1,
  });
  try {
    await seed(handle.db);
  } finally {
    await handle.close();
  }
}
