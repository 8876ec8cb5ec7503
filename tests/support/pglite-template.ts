/**
 * A fresh, migrated database that opens fast: the focused "rules" suites that StrykerJS runs
 * once per mutant (docs/mutation-testing.md) cannot afford a fresh in-memory PGlite (seconds of initdb and
 * migrations, many more on a busy machine). Without TEST_DATABASE_URL, one migrated PGlite
 * folder is kept in the temp directory (named by a hash of the migrations) and each call copies
 * it to a folder of its own; with TEST_DATABASE_URL this is createTestDatabase().
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, renameSync, rmSync } from "node:fs";
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

const COPY_PREFIX = "stacktrack-rules-";

/** Whether a process with this id still runs (signal 0 checks without sending anything). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes the copies of test processes that are gone: a runner killed before its afterAll
 * (StrykerJS ends a mutant's run that way on a timeout) never drops its copy, and at 40 MB
 * each they filled the disk. Each copy's name carries the id of the process that made it.
 */
function sweepOrphans(): void {
  for (const name of readdirSync(tmpdir())) {
    const pid = name.startsWith(COPY_PREFIX) ? Number.parseInt(name.slice(COPY_PREFIX.length), 10) : 0;
    if (pid && pid !== process.pid && !alive(pid)) rmSync(join(tmpdir(), name), { recursive: true, force: true });
  }
}

/** A migrated database of this test's own: env for startApi, drop() removes it. */
export async function migratedDatabase(): Promise<TestDatabase> {
  if (usingPostgres()) return createTestDatabase();
  const template = await templateDir();
  sweepOrphans();
  const dir = mkdtempSync(join(tmpdir(), `${COPY_PREFIX}${process.pid}-`));
  cpSync(template, join(dir, "data"), { recursive: true });
  return {
    env: { DATA_DIR: join(dir, "data") },
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}
