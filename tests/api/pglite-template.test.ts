/**
 * Issue 17: an empty PGlite data directory starts from the build's migrated template
 * (db/pglite-template.ts) instead of initdb + every migration. The template must give the
 * very database the migrations give; a template of other migrations, or a damaged one, must
 * never be used (initdb then, and the same database); the data-folder lock comes first; and
 * the server starts without any template at all.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { type Database, DataDirLockedError, openDatabase } from "../../db/client";
import { buildTemplate, templateFileName, templateKey } from "../../db/pglite-template";
import { freePort, ROOT, serverEnv, skipWithoutBuild, spawnServer, waitUntilHealthy } from "../support/process";

const MIGRATIONS = join(ROOT, "db/migrations");
const work = mkdtempSync(join(tmpdir(), "stacktrack-template-"));
const templates = join(work, "templates");
const noTemplates = join(work, "none");
let reference: Snapshot;

afterAll(() => rmSync(work, { recursive: true, force: true }));

type Snapshot = Record<string, unknown[]>;

/** Everything the migrations make, as rows that compare by value. */
async function snapshot(database: Database): Promise<Snapshot> {
  // PGlite's driver answers { rows }.
  const rows = async (query: ReturnType<typeof sql>) =>
    ((await database.db.execute(query)) as unknown as { rows: unknown[] }).rows;
  return {
    columns: await rows(sql`
      select table_schema, table_name, column_name, ordinal_position, data_type, is_nullable, column_default
      from information_schema.columns where table_schema in ('public', 'drizzle')
      order by table_schema, table_name, ordinal_position`),
    constraints: await rows(sql`
      select conrelid::regclass::text as tbl, conname, pg_get_constraintdef(oid) as def
      from pg_constraint where connamespace = 'public'::regnamespace order by 1, 2`),
    indexes: await rows(sql`
      select schemaname, tablename, indexname, indexdef from pg_indexes
      where schemaname in ('public', 'drizzle') order by 1, 2, 3`),
    triggers: await rows(sql`
      select tgrelid::regclass::text as tbl, tgname, pg_get_triggerdef(oid) as def
      from pg_trigger where not tgisinternal order by 1, 2`),
    functions: await rows(sql`
      select proname, pg_get_function_identity_arguments(oid) as args, md5(prosrc) as body
      from pg_proc where pronamespace = 'public'::regnamespace order by 1, 2`),
    migrations: await rows(sql`select hash, created_at from drizzle.__drizzle_migrations order by id`),
  };
}

/** Opens `dataDir` with `templateDir`, reads its snapshot and how it was made, closes it. */
async function openAndRead(dataDir: string, templateDir: string) {
  const database = await openDatabase({ dataDir, templateDir });
  try {
    return { created: database.created, snapshot: await snapshot(database) };
  } finally {
    await database.close();
  }
}

/** A copy of db/migrations without its newest migration: the migrations of an older build. */
function olderMigrations(): string {
  const dir = join(work, "older-migrations");
  cpSync(MIGRATIONS, dir, { recursive: true });
  const journalPath = join(dir, "meta/_journal.json");
  const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: { tag: string }[] };
  const last = journal.entries.pop();
  if (!last) throw new Error("no migrations");
  rmSync(join(dir, `${last.tag}.sql`));
  writeFileSync(journalPath, JSON.stringify(journal, null, 2));
  return dir;
}

beforeAll(async () => {
  mkdirSync(templates);
  mkdirSync(noTemplates);
  writeFileSync(join(templates, templateFileName(templateKey(MIGRATIONS))), await buildTemplate(MIGRATIONS));
  // The database as initdb and the migrations make it: what the template must equal.
  const made = await openAndRead(join(work, "reference"), noTemplates);
  expect(made.created?.from).toBe("initdb");
  reference = made.snapshot;
  expect(reference.columns?.length).toBeGreaterThan(20);
  expect(reference.migrations?.length).toBeGreaterThan(5);
}, 120_000);

describe("an empty data directory and the template", () => {
  test("starts from the template, and the database equals a migrated one (tables, keys, indexes, triggers, functions, migrations)", async () => {
    const dataDir = join(work, "from-template");
    const { created, snapshot: got } = await openAndRead(dataDir, templates);
    expect(created?.from).toBe("template");
    expect(got).toEqual(reference);
    // Nothing left beside the database: no half-unpacked folder.
    expect(readdirSync(dataDir).sort()).toEqual(["pglite"]);
    // A second start finds it and leaves it as it is.
    const again = await openAndRead(dataDir, templates);
    expect(again.created?.from).toBe("existing");
    expect(again.snapshot).toEqual(reference);
  }, 60_000);

  test("a template of other migrations (an older build's) is never used", async () => {
    const older = olderMigrations();
    expect(templateKey(older)).not.toBe(templateKey(MIGRATIONS));
    const stale = join(work, "stale");
    mkdirSync(stale);
    writeFileSync(join(stale, templateFileName(templateKey(older))), await buildTemplate(older));
    const { created, snapshot: got } = await openAndRead(join(work, "with-stale"), stale);
    expect(created?.from).toBe("initdb");
    expect(created?.template).toMatchObject({ used: false, reason: "no template" });
    expect(got).toEqual(reference);
  }, 120_000);

  const current = () => readFileSync(join(templates, templateFileName(templateKey(MIGRATIONS))));
  const damaged: [string, () => Uint8Array][] = [
    ["not gzip", () => new TextEncoder().encode("not a tarball")],
    ["gzip of something else", () => Bun.gzipSync(new TextEncoder().encode("x".repeat(2000)))],
    ["cut short", () => Bun.gzipSync(Bun.gunzipSync(current()).subarray(0, 300_000))],
    [
      "an entry leaving the folder",
      () => {
        const tar = Bun.gunzipSync(current());
        tar.set(new TextEncoder().encode("../escape\0"), 0); // the first entry's name
        return Bun.gzipSync(tar);
      },
    ],
  ];
  test.each(damaged)(
    "a damaged template (%s) is not used: initdb, the same database, nothing left over",
    async (name, bytes) => {
      const dir = join(work, `damaged-${name.replaceAll(" ", "-")}`);
      mkdirSync(dir);
      writeFileSync(join(dir, templateFileName(templateKey(MIGRATIONS))), bytes());
      const dataDir = join(dir, "data");
      const { created, snapshot: got } = await openAndRead(dataDir, dir);
      expect(created?.from).toBe("initdb");
      expect(created?.template).toMatchObject({ used: false, reason: "failed" });
      expect(got).toEqual(reference);
      expect(readdirSync(dataDir).sort()).toEqual(["pglite"]);
      expect(existsSync(join(work, "escape"))).toBe(false);
    },
    60_000,
  );

  test("the data-folder lock comes first: a folder in use by another process is neither unpacked nor opened", async () => {
    const dataDir = join(work, "locked");
    mkdirSync(dataDir);
    const other = Bun.spawn(["sleep", "60"]);
    try {
      writeFileSync(join(dataDir, "stacktrack.lock"), String(other.pid));
      await expect(openDatabase({ dataDir, templateDir: templates })).rejects.toBeInstanceOf(DataDirLockedError);
      expect(readdirSync(dataDir)).toEqual(["stacktrack.lock"]);
    } finally {
      other.kill();
      await other.exited;
    }
  });
});

/** The running tree, without dist/pglite-template: a build that has no template. */
function treeWithoutTemplate(): string {
  const tree = join(work, "tree");
  mkdirSync(tree);
  for (const entry of [
    "server.ts",
    "server",
    "api",
    "db",
    "src",
    "dist",
    "package.json",
    "tsconfig.json",
    "bunfig.toml",
  ]) {
    cpSync(join(ROOT, entry), join(tree, entry), { recursive: true });
  }
  rmSync(join(tree, "dist/pglite-template"), { recursive: true, force: true });
  symlinkSync(join(ROOT, "node_modules"), join(tree, "node_modules"));
  return tree;
}

describe.skipIf(skipWithoutBuild("pglite-template.test.ts: the server on an empty DATA_DIR"))(
  "the server on an empty DATA_DIR",
  () => {
    const ready = (output: string) =>
      output
        .split("\n")
        .filter((line) => line.includes('"database ready"'))
        .map((line) => JSON.parse(line) as { from?: string });

    test("the built tree starts from its template and writes to it", async () => {
      expect(existsSync(join(ROOT, "dist/pglite-template", templateFileName(templateKey(MIGRATIONS))))).toBe(true);
      const port = freePort();
      const url = `http://127.0.0.1:${port}`;
      const server = spawnServer({
        DATA_DIR: join(work, "server-data"),
        PORT: String(port),
        PUBLIC_ORIGIN: url,
        LOG_LEVEL: "info",
      });
      try {
        await waitUntilHealthy(server, 60_000);
        const signUp = await fetch(`${url}/api/auth/sign-up/email`, {
          method: "POST",
          headers: { "content-type": "application/json", origin: url },
          body: JSON.stringify({
            email: `t-${Date.now()}@example.com`,
            password: "correct horse battery",
            name: "Tem Plate",
          }),
        });
        expect(signUp.status).toBe(200);
      } finally {
        expect(await server.stop()).toBe(0);
      }
      expect(ready(server.output()).map((line) => line.from)).toEqual(["template"]);
    }, 90_000);

    test("a tree without the template starts all the same (initdb and the migrations)", async () => {
      const tree = treeWithoutTemplate();
      const port = freePort();
      const url = `http://127.0.0.1:${port}`;
      const proc = Bun.spawn([process.execPath, "server.ts"], {
        cwd: tree,
        env: serverEnv({
          DATA_DIR: join(work, "tree-data"),
          PORT: String(port),
          PUBLIC_ORIGIN: url,
          LOG_LEVEL: "info",
        }),
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      });
      const out = Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
      try {
        const deadline = Date.now() + 90_000;
        let status = 0;
        while (status !== 200 && Date.now() < deadline && proc.exitCode === null) {
          status = await fetch(`${url}/api/health`).then(
            (res) => res.status,
            () => 0,
          );
          if (status !== 200) await Bun.sleep(100);
        }
        expect(status).toBe(200);
      } finally {
        proc.kill("SIGTERM");
        await proc.exited;
      }
      const [stdout, stderr] = await out;
      expect(ready(stdout).map((line) => line.from)).toEqual(["initdb"]);
      expect(stderr).not.toContain("template could not be used");
    }, 120_000);
  },
);
