/**
 * Issue 14: the counter logs each counted view (api/insights/visit-log.ts) and a flush hashes
 * the log in a worker thread (api/insights/visit-hashing.ts, hashing-thread.ts). What the log
 * keeps must be exactly the view's address and User-Agent, and the worker's answers exactly
 * those of the same code on the calling thread, new visitors once, within the room given.
 */
import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { HashingThread } from "../../api/insights/hashing-thread";
import { type HashedVisits, type VisitBatch, VisitHashing } from "../../api/insights/visit-hashing";
import { addressStart, type LoggedVisits, VisitLog } from "../../api/insights/visit-log";
import { storedVisitorHash as hashOf } from "../support/visitor-hash";

const CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36";
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";

/** Every view of a taken log, as (owner, address, agent). */
function viewsOf(visits: LoggedVisits): [number, string, string][] {
  const out: [number, string, string][] = [];
  for (let i = 0; i < visits.count; i++) {
    const address = Buffer.from(visits.address.subarray(addressStart(visits, i), visits.addressEnds[i])).toString(
      "utf8",
    );
    out.push([visits.owners[i] as number, address, visits.agents[visits.agentIds[i] as number] as string]);
  }
  return out;
}

/** A fresh copy of `text` (another string object, as each request's header is). */
const copy = (text: string) => ` ${text}`.slice(1);

describe("VisitLog", () => {
  test("keeps each view's owner, address and User-Agent, in order, across growth; one copy per distinct User-Agent", () => {
    const log = new VisitLog(10_000, 1_000_000);
    const want: [number, string, string][] = [];
    const agents = [CHROME, FIREFOX, "", "Navigateur é 浏览器 🦊"];
    for (let i = 0; i < 3000; i++) {
      const address = i % 7 === 0 ? `2001:db8::${i.toString(16)}` : `198.51.${i >> 8}.${i & 255}`;
      const agent = agents[(i >> 3) % agents.length] as string;
      expect(log.push(i % 13, address, copy(agent))).toBe(true);
      want.push([i % 13, address, agent]);
    }
    expect(log.length).toBe(3000);
    const taken = log.take();
    expect(viewsOf(taken)).toEqual(want);
    expect([...taken.agents].sort()).toEqual([...agents].sort());
    expect(log.length).toBe(0);
    expect(log.agentLength).toBe(0);
    expect(log.take().count).toBe(0);
  });

  test("an address that is not ASCII is kept as UTF-8, whole", () => {
    const log = new VisitLog(10, 1000);
    log.push(0, "10.0.0.1", CHROME);
    log.push(1, "abc-é-ü", CHROME);
    log.push(2, "", CHROME);
    log.push(3, "10.0.0.2", CHROME);
    expect(viewsOf(log.take()).map((v) => v[1])).toEqual(["10.0.0.1", "abc-é-ü", "", "10.0.0.2"]);
  });

  test("full at maxVisits views, or at maxAgentChars of distinct User-Agents (a known one still fits)", () => {
    const byViews = new VisitLog(3, 1000);
    for (let i = 0; i < 3; i++) expect(byViews.push(0, "10.0.0.1", CHROME)).toBe(true);
    expect(byViews.push(0, "10.0.0.1", CHROME)).toBe(false);
    expect(byViews.take().count).toBe(3);
    expect(byViews.push(0, "10.0.0.1", CHROME)).toBe(true);

    const byAgents = new VisitLog(100, 10);
    expect(byAgents.push(0, "10.0.0.1", "aaaaaa")).toBe(true);
    expect(byAgents.push(0, "10.0.0.1", "bbbbbb")).toBe(false);
    expect(byAgents.push(0, "10.0.0.1", "bbbb")).toBe(true);
    expect(byAgents.push(0, "10.0.0.2", copy("aaaaaa"))).toBe(true);
    expect(byAgents.push(0, "10.0.0.3", "c")).toBe(false);
    expect(byAgents.agentLength).toBe(10);
    expect(viewsOf(byAgents.take())).toEqual([
      [0, "10.0.0.1", "aaaaaa"],
      [0, "10.0.0.1", "bbbb"],
      [0, "10.0.0.2", "aaaaaa"],
    ]);
  });

  test("pushFrom logs a taken view again, under another owner", () => {
    const log = new VisitLog(10, 1000);
    log.push(4, "10.0.0.1", CHROME);
    log.push(5, "abc-é", FIREFOX);
    const taken = log.take();
    log.pushFrom(taken, 1, 0);
    log.pushFrom(taken, 0, 1);
    expect(viewsOf(log.take())).toEqual([
      [0, "abc-é", FIREFOX],
      [1, "10.0.0.1", CHROME],
    ]);
  });
});

const DAY = "2026-06-01";

/** The batch of `views` ([profile index, address, agent]) over `profiles` on `DAY`. */
function batchOf(
  views: [number, string, string][],
  salt: Uint8Array,
  room = 1000,
  profiles = ["p0", "p1"],
): VisitBatch {
  const log = new VisitLog(10_000, 1_000_000);
  for (const [owner, address, agent] of views) log.push(owner, address, agent);
  return { visits: log.take(), profiles, days: profiles.map(() => DAY), salts: [[DAY, salt]], room };
}

const hashesOf = (hashed: HashedVisits): [number, string][] =>
  Array.from(hashed.owners, (owner, i) => [
    owner,
    Buffer.from(hashed.words.buffer, hashed.words.byteOffset + i * 16, 16).toString("hex"),
  ]);

describe("VisitHashing", () => {
  const salt = randomBytes(32);

  test("each new visitor's hash once, in view order; a known one (this batch or an earlier one) adds none", () => {
    const hashing = new VisitHashing();
    const first = hashing.run(
      batchOf(
        [
          [0, "10.0.0.1", CHROME],
          [0, "10.0.0.1", CHROME],
          [1, "10.0.0.1", CHROME],
          [0, "10.0.0.1", FIREFOX],
          [0, "2001:db8::1", CHROME],
        ],
        salt,
      ),
    );
    expect(hashesOf(first)).toEqual([
      [0, hashOf(salt, "10.0.0.1", CHROME, "p0")],
      [1, hashOf(salt, "10.0.0.1", CHROME, "p1")],
      [0, hashOf(salt, "10.0.0.1", FIREFOX, "p0")],
      [0, hashOf(salt, "2001:db8::1", CHROME, "p0")],
    ]);
    const second = hashing.run(
      batchOf(
        [
          [1, "10.0.0.1", CHROME],
          [1, "10.0.0.9", CHROME],
        ],
        salt,
      ),
    );
    expect(hashesOf(second)).toEqual([[1, hashOf(salt, "10.0.0.9", CHROME, "p1")]]);
  });

  test("past the room a new visitor is neither kept nor remembered: counted once there is room", () => {
    const hashing = new VisitHashing();
    const views: [number, string, string][] = [0, 1, 2, 3].map((i) => [0, `10.0.0.${i}`, CHROME]);
    expect(hashesOf(hashing.run(batchOf(views, salt, 2))).map((h) => h[1])).toEqual([
      hashOf(salt, "10.0.0.0", CHROME, "p0"),
      hashOf(salt, "10.0.0.1", CHROME, "p0"),
    ]);
    expect(hashing.run(batchOf(views, salt, 0)).count).toBe(0);
    expect(hashesOf(hashing.run(batchOf(views, salt, 10))).map((h) => h[1])).toEqual([
      hashOf(salt, "10.0.0.2", CHROME, "p0"),
      hashOf(salt, "10.0.0.3", CHROME, "p0"),
    ]);
  });

  // One pair key per (profile, User-Agent) of a batch, kept for its other views: in a table
  // when profiles × User-Agents are at most 2^20, else in a map. Every view's hash must be its
  // own pair's, whichever view made that key and however the views interleave.
  test.each([
    ["a table (40 profiles × 30 User-Agents)", 40, 30],
    ["a map (1,100 profiles × 1,000 User-Agents)", 1100, 1000],
  ])("pair keys kept in %s: each view hashed under its own profile and User-Agent", (_what, owners, agents) => {
    const profiles = Array.from({ length: owners }, (_, i) => `profile_${i}`);
    const views: [number, string, string][] = [];
    for (let i = 0; i < 3000; i++) {
      const owner = (i * 7) % owners;
      views.push([owner, `10.2.${i >> 8}.${i & 255}`, `Agent/${(i * 13) % agents}`]);
      if (i % 3 === 0) views.push([owner, `10.3.${i >> 8}.${i & 255}`, `Agent/${(i * 13) % agents}`]); // the same pair again
    }
    const hashed = new VisitHashing().run(batchOf(views, salt, 10_000, profiles));
    expect(hashesOf(hashed)).toEqual(
      views.map(([owner, address, agent]) => [owner, hashOf(salt, address, agent, profiles[owner] as string)]),
    );
  });

  test("a view of a day with no salt given is not hashed; a new day's salt starts a new set", () => {
    const hashing = new VisitHashing();
    const batch = batchOf([[0, "10.0.0.1", CHROME]], salt);
    expect(hashing.run({ ...batch, salts: [] }).count).toBe(0);
    expect(hashing.run(batch).count).toBe(1);
    const next = randomBytes(32);
    const tomorrow = { ...batchOf([[0, "10.0.0.1", CHROME]], next), days: ["2026-06-02", "2026-06-02"] };
    const hashed = hashing.run({ ...tomorrow, salts: [["2026-06-02", next]] });
    expect(hashesOf(hashed)).toEqual([[0, hashOf(next, "10.0.0.1", CHROME, "p0")]]);
  });
});

describe("HashingThread", () => {
  const salt = randomBytes(32);
  const batches = () => {
    const views = (from: number, to: number): [number, string, string][] =>
      Array.from({ length: to - from }, (_, k) => [
        (from + k) % 2,
        `10.1.${(from + k) >> 8}.${(from + k) & 255}`,
        CHROME,
      ]);
    return [batchOf(views(0, 500), salt), batchOf(views(250, 800), salt), batchOf(views(0, 900), salt, 50)];
  };

  test("the worker thread gives exactly what the same code gives on this thread", async () => {
    const worker = new HashingThread();
    const inline = new HashingThread("inline");
    try {
      for (const batch of batches()) {
        const [a, b] = [await worker.run(batch), await inline.run(batch)];
        expect(hashesOf(a)).toEqual(hashesOf(b));
      }
      expect(worker.inWorker).toBe(true);
      expect(inline.inWorker).toBe(false);
    } finally {
      worker.stop();
    }
  });

  test("stop while a batch is in the worker: that batch is hashed on this thread, with the same answers", async () => {
    const thread = new HashingThread();
    const inline = new HashingThread("inline");
    const [batch] = batches() as [VisitBatch];
    const pending = thread.run(batch);
    thread.stop();
    expect(hashesOf(await pending)).toEqual(hashesOf(await inline.run(batch)));
    expect(thread.inWorker).toBe(false);
  });

  test("a worker that cannot start: the batch is hashed on this thread, with the same answers, from then on", async () => {
    const broken = new HashingThread(new URL("./no-such-worker.ts", import.meta.url).href);
    const inline = new HashingThread("inline");
    for (const batch of batches()) {
      expect(hashesOf(await broken.run(batch))).toEqual(hashesOf(await inline.run(batch)));
      expect(broken.inWorker).toBe(false);
    }
  });
});
