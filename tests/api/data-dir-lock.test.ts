/**
 * PGlite has no lock between processes, and two processes on one folder silently lose
 * writes. A second `bun server.ts` on a folder in use must refuse to start, loudly, and
 * the first must go on unharmed and lose nothing.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { openDatabase } from "../../db/client";
import { users } from "../../db/schema";
import { PRODUCT_NAME } from "../../src/lib/constants";
import { freePort, type ServerProcess, skipWithoutBuild, spawnServer, startServer } from "../support/process";

describe.skipIf(skipWithoutBuild("data-dir-lock.test.ts: one data folder, one process"))(
  "one data folder, one process",
  () => {
    const dir = mkdtempSync(join(tmpdir(), "stacktrack-lock-"));
    const dataDir = join(dir, "data");
    let first: ServerProcess | undefined;
    let second: ServerProcess | undefined;

    afterAll(async () => {
      await second?.stop();
      await first?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    test("a second server on the same DATA_DIR refuses to start; the first keeps everything", async () => {
      first = await startServer({ DATA_DIR: dataDir });

      // Something written through the first process.
      const email = `lock-${Date.now()}@example.com`;
      const signUp = await fetch(`${first.url}/api/auth/sign-up/email`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: first.url },
        body: JSON.stringify({ email, password: "correct horse battery", name: "Lock Test" }),
      });
      expect(signUp.status).toBe(200);

      // The real server, a second time, on the same folder.
      const port = freePort();
      second = spawnServer({ DATA_DIR: dataDir, PORT: String(port), PUBLIC_ORIGIN: `http://127.0.0.1:${port}` });
      const code = await Promise.race([second.exited, Bun.sleep(8000).then(() => "still running" as const)]);
      expect(code).not.toBe("still running");
      expect(code).not.toBe(0);
      expect(second.output()).toContain(`in use by another ${PRODUCT_NAME} process`);
      expect(second.output()).toContain(String(first.proc.pid));

      // The first is unharmed.
      const health = await fetch(`${first.url}/api/health`);
      expect(health.status).toBe(200);

      // It stops cleanly, and what it wrote is on disk.
      expect(await first.stop()).toBe(0);
      const database = await openDatabase({ dataDir });
      try {
        const rows = await database.db.select().from(users).where(eq(users.email, email));
        expect(rows).toHaveLength(1);
        expect(rows[0]?.firstName).toBe("Lock");
      } finally {
        await database.close();
      }
    }, 60_000);
  },
);
