/**
 * A fresh, migrated database that opens fast: the focused "rules" suites that StrykerJS runs
 * once per mutant (TESTING.md) cannot afford a fresh in-memory PGlite (seconds of initdb and
 * migrations, many more on a busy machine). Without TEST_DATABASE_URL, one migrated PGlite
 * folder is kept in the temp directory (named by a hash of the migrations) and each call copies
 * it to a folder of its own; with TEST_DATABASE_URL this is createTestDatabase().
 */
import { cpSync, existsSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../db/client";
import { createTestDatabase, migrationsHash, type TestDatabase, usingPostgres } from "./db";

/** The migrated template folder, built by whichever process gets there first. */
async function templateDir(): Promise<string> {
  const dir = join(tmpdir(), `stacktrack-pglite-template-${migrationsHash()}`);
  if (existsSync(join(dir, "pglite"))) return dir;
  // Built under another name and renamed into place: no process sees half a template.
  const building = `${dir}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  const database = await openDatabase({ dataDir: building });
  await database.close();
  try {
    renameSync(building, dir);
  } catch {
    rmSync(building, { recursive: true, force: true }); // another process was first
  }
  return dir;
}

/** A migrated database of this test's own: env for startApi, drop() removes it. */
export async function migratedDatabase(): Promise<TestDatabase> {
  if (usingPostgres()) return createTestDatabase();
  const template = await templateDir();
  const dir = mkdtempSync(join(tmpdir(), "stacktrack-rules-"));
  cpSync(template, join(dir, "data"), { recursive: true });
  return {
    env: { DATA_DIR: join(dir, "data") },
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}
