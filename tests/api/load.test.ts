/**
 * Load with bookkeeping: LOAD_USERS (100) simulated users for LOAD_SECONDS (60) against the
 * built server doing the real mix (dashboard, list, add, edit, reorder, delete, bio, others'
 * profiles), rate limits on, each behind their own address. Each user acts in sequence, so
 * every read is checked against what its acknowledged answers said, and at the end the
 * database holds exactly that. Zero 5xx, connection errors or unexpected 4xx. Postgres in CI.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { inArray } from "drizzle-orm";
import { supplements, users } from "../../db/schema";
import { QUANTITY_TYPES } from "../../src/lib/constants";
import { type Instance, type SharedDatabase, sharedDatabase, startInstance } from "../support/instances";
import { skipWithoutBuild } from "../support/process";

const USERS = Number(process.env.LOAD_USERS ?? 100);
const SECONDS = Number(process.env.LOAD_SECONDS ?? 60);
const MAX_ITEMS = 25;

interface Item {
  id: number;
  name: string;
  quantityType: string;
  frequency: string;
}

interface SimUser {
  n: number;
  id: string;
  ip: string;
  cookie: string;
  username: string;
  bio: string | null;
  items: Item[];
}

interface Stat {
  count: number;
  ms: number[];
}

describe.skipIf(skipWithoutBuild("load.test.ts: the load test"))(
  `load: ${USERS} users for ${SECONDS} s, with bookkeeping`,
  () => {
    let db: SharedDatabase;
    let server: Instance;
    const sims: SimUser[] = [];
    const stats = new Map<string, Stat>();
    const problems: string[] = [];
    let requests = 0;

    beforeAll(async () => {
      db = await sharedDatabase();
      server = await startInstance({ ...db.env, RATE_LIMIT: "on", TRUST_PROXY: "true" });
      const run = crypto.randomUUID().slice(0, 5);
      const signUpOne = async (n: number) => {
        const ip = `10.${100 + Math.floor(n / 250)}.${n % 250}.7`;
        const res = await fetch(`${server.url}/api/auth/sign-up/email`, {
          method: "POST",
          headers: { origin: server.url, "content-type": "application/json", "x-forwarded-for": ip },
          body: JSON.stringify({
            email: `load-${run}-${n}@example.com`,
            password: "correct horse battery",
            name: `Load ${n}`,
          }),
        });
        expect(res.status).toBe(200);
        const { user } = (await res.json()) as { user: { id: string } };
        const cookie = res.headers
          .getSetCookie()
          .map((c) => c.split(";")[0])
          .join("; ");
        const username = `load_${run}_${n}`;
        const put = await fetch(`${server.url}/api/profile`, {
          method: "PUT",
          headers: { origin: server.url, "content-type": "application/json", "x-forwarded-for": ip, cookie },
          body: JSON.stringify({ username }),
        });
        expect(put.status).toBe(200);
        sims.push({ n, id: user.id, ip, cookie, username, bio: null, items: [] });
      };
      for (let i = 0; i < USERS; i += 10) {
        await Promise.all(Array.from({ length: Math.min(10, USERS - i) }, (_, k) => signUpOne(i + k)));
      }
    }, 120_000);

    afterAll(async () => {
      await server?.stop();
      await db?.drop();
    });

    async function call(
      sim: SimUser,
      op: string,
      path: string,
      init: { method?: string; body?: unknown } = {},
      expected: number[] = [200],
    ): Promise<{ status: number; body: unknown; text: string } | null> {
      const started = performance.now();
      requests++;
      let res: Response;
      try {
        res = await fetch(`${server.url}${path}`, {
          method: init.method ?? "GET",
          headers: {
            origin: server.url,
            cookie: sim.cookie,
            "x-forwarded-for": sim.ip,
            ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
          },
          body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
          redirect: "manual",
          signal: AbortSignal.timeout(30_000),
        });
      } catch (error) {
        problems.push(`${op} ${path}: ${error}`);
        return null;
      }
      const text = await res.text();
      const ms = performance.now() - started;
      const stat = stats.get(op) ?? { count: 0, ms: [] };
      stat.count++;
      stat.ms.push(ms);
      stats.set(op, stat);
      if (!expected.includes(res.status)) {
        problems.push(`${op} ${path} as ${sim.username}: ${res.status} ${text.slice(0, 200)}`);
        return null;
      }
      let body: unknown = null;
      try {
        body = JSON.parse(text);
      } catch {
        // pages
      }
      return { status: res.status, body, text };
    }

    const pick = <T>(list: T[]): T => list[Math.floor(Math.random() * list.length)] as T;
    const sameList = (sim: SimUser, got: Item[], where: string) => {
      const want = sim.items.map((i) => `${i.id}|${i.name}|${i.quantityType}|${i.frequency}`);
      const have = got.map((i) => `${i.id}|${i.name}|${i.quantityType}|${i.frequency}`);
      if (JSON.stringify(want) !== JSON.stringify(have)) {
        problems.push(
          `${where} for ${sim.username}: expected ${want.length} items ${want.slice(0, 3)}…, got ${have.length} ${have.slice(0, 3)}…`,
        );
      }
    };

    async function step(sim: SimUser, seq: () => number) {
      const r = Math.random();
      if (r < 0.2) {
        const res = await call(sim, "dashboard page", "/");
        if (res && !res.text.includes(sim.username))
          problems.push(`dashboard of ${sim.username} does not show the user`);
      } else if (r < 0.3) {
        const res = await call(sim, "list", "/api/supplements");
        if (res) sameList(sim, res.body as Item[], "GET /api/supplements");
      } else if (r < 0.45) {
        const other = pick(sims);
        if (Math.random() < 0.5) await call(other, "profile page", `/${other.username}`);
        else await call(other, "profile API", `/api/profile/${other.username}`);
      } else if (r < 0.6 || sim.items.length === 0) {
        if (sim.items.length >= MAX_ITEMS) return;
        const item = {
          name: `S${seq()} of ${sim.n}`,
          quantityType: pick([...QUANTITY_TYPES]),
          frequency: pick(["daily", "weekly", "twice a day"]),
        };
        const res = await call(sim, "add", "/api/supplements", { method: "POST", body: item }, [201]);
        if (res) sim.items.push({ ...item, id: (res.body as Item).id });
      } else if (r < 0.72) {
        const target = pick(sim.items);
        const change = {
          name: `E${seq()} of ${sim.n}`,
          quantityType: pick([...QUANTITY_TYPES]),
          frequency: "as needed",
        };
        const res = await call(sim, "edit", `/api/supplements/${target.id}`, { method: "PUT", body: change });
        if (res) Object.assign(target, change);
      } else if (r < 0.84) {
        const order = [...sim.items].sort(() => Math.random() - 0.5);
        const res = await call(sim, "reorder", "/api/supplements/reorder", {
          method: "PUT",
          body: { supplementIds: order.map((i) => i.id) },
        });
        if (res) {
          sim.items = order;
          sameList(sim, res.body as Item[], "reorder answer");
        }
      } else if (r < 0.94) {
        const target = pick(sim.items);
        const res = await call(sim, "delete", `/api/supplements/${target.id}`, { method: "DELETE" }, [204]);
        if (res) sim.items = sim.items.filter((i) => i !== target);
      } else {
        const bio = `bio ${seq()} of ${sim.n}`;
        const res = await call(sim, "bio", "/api/profile", { method: "PUT", body: { bio } });
        if (res) sim.bio = bio;
      }
    }

    test(
      "zero 5xx and no unexpected answer under the mix; the database holds exactly what was acknowledged",
      async () => {
        expect(sims.length).toBe(USERS);
        let counter = 0;
        const seq = () => ++counter;
        const started = performance.now();
        const until = started + SECONDS * 1000;
        await Promise.all(
          sims.map(async (sim) => {
            await Bun.sleep(Math.random() * 500);
            while (performance.now() < until) {
              await step(sim, seq);
              await Bun.sleep(100 + Math.random() * 300);
            }
          }),
        );
        const seconds = (performance.now() - started) / 1000;

        const lines = [...stats.entries()].map(([op, s]) => {
          const sorted = [...s.ms].sort((a, b) => a - b);
          const q = (p: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0);
          return `  ${op.padEnd(16)} ${String(s.count).padStart(6)}  p50 ${q(0.5)} ms  p95 ${q(0.95)} ms  p99 ${q(0.99)} ms`;
        });
        console.log(
          `load: ${requests} requests in ${seconds.toFixed(1)} s (${Math.round(requests / seconds)}/s), ${USERS} users\n${lines.join("\n")}`,
        );
        expect(problems.slice(0, 20)).toEqual([]);
        expect(requests).toBeGreaterThan(USERS * 10);

        // The database, read directly (PGlite: once the server has stopped).
        if (db.kind === "pglite") await server.stop();
        const ids = sims.map((s) => s.id);
        const [rows, userRows] = await db.withDb(
          async (d) =>
            [
              await d.select().from(supplements).where(inArray(supplements.userId, ids)),
              await d.select({ id: users.id, bio: users.bio }).from(users).where(inArray(users.id, ids)),
            ] as const,
        );
        const mismatches: string[] = [];
        const expectedRows = sims.reduce((n, s) => n + s.items.length, 0);
        if (rows.length !== expectedRows) mismatches.push(`${rows.length} rows stored, ${expectedRows} acknowledged`);
        for (const sim of sims) {
          const stored = rows
            .filter((r) => r.userId === sim.id)
            .sort((a, b) => a.sortOrder - b.sortOrder || a.id - b.id)
            .map((r) => `${r.id}|${r.name}|${r.quantityType}|${r.frequency}`);
          const want = sim.items.map((i) => `${i.id}|${i.name}|${i.quantityType}|${i.frequency}`);
          if (JSON.stringify(stored) !== JSON.stringify(want))
            mismatches.push(`${sim.username}: stored ${stored} ≠ acknowledged ${want}`);
          const bio = userRows.find((u) => u.id === sim.id)?.bio ?? null;
          if (bio !== sim.bio) mismatches.push(`${sim.username}: bio ${bio} ≠ ${sim.bio}`);
        }
        expect(mismatches.slice(0, 10)).toEqual([]);
      },
      (SECONDS + 120) * 1000,
    );
  },
);
