/**
 * Client addresses behind proxies, over HTTP: every limiter counts the one address that
 * api/lib/client-address.ts decides. A forged first entry buys no fresh allowance (sign-in,
 * sign-up, reset, the profile API); TRUST_PROXY=2 and false read right; a client cannot write
 * the header better-auth reads; IPv6 counts by its /64; uploads are limited per account; the
 * built server decides once, for streamed bodies too, and logs it. The function's own table:
 * tests/unit/client-address.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import sharp from "sharp";
import { createApp } from "../../api/app";
import { CLIENT_IP_HEADER } from "../../api/auth/auth";
import { LIMITS } from "../../api/lib/rate-limit";
import { type Instance, type SharedDatabase, sharedDatabase, startInstance } from "../support/instances";
import { skipWithoutBuild } from "../support/process";
import { startApi, type TestApi } from "../support/server";
import { freshMinute, inOneWindow } from "../support/windows";

/** Addresses no other test uses: 198.18.0.0/15 (benchmarking), one per call. */
let counter = 0;
function nextAddress(): string {
  counter += 1;
  return `198.18.${Math.floor(counter / 250) % 250}.${(counter % 250) + 1}`;
}
/** An IPv6 group no other test uses (for a fresh /48). */
function nextNet(): string {
  counter += 1;
  return counter.toString(16);
}
/** A different forged first entry each time: what a client writes to buy a new bucket. */
const forged = (i: number) => `10.${i % 250}.${Math.floor(i / 250) % 250}.${(i * 7) % 250}`;

const PASSWORD = "correct horse battery";

interface Account {
  email: string;
  cookie: string;
}

async function signUp(api: TestApi, forwardedFor: string): Promise<Account> {
  const email = `addr-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const res = await api.fetch("/api/auth/sign-up/email", {
    method: "POST",
    headers: { "x-forwarded-for": forwardedFor },
    body: { email, password: PASSWORD, name: "Address Test" },
  });
  expect(res.status).toBe(200);
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  return { email, cookie };
}

/** One wrong-password sign-in; its status. */
async function wrongSignIn(api: TestApi, email: string, headers: Record<string, string>): Promise<number> {
  const res = await api.fetch("/api/auth/sign-in/email", {
    method: "POST",
    headers,
    body: { email, password: "not the password" },
  });
  await res.arrayBuffer();
  return res.status;
}

/**
 * Another e-mail on every attempt: sign-in is limited per account too (issue 36), and these
 * tests are about the client's address alone (tests/api/route-limits.test.ts has the rest).
 */
const anyone = () => `nobody-${crypto.randomUUID().slice(0, 10)}@example.com`;

const SIGN_IN_REFUSALS = [401, 401, 401, 401, 401, 401, 401, 401, 401, 401, 429, 429, 429];

describe("TRUST_PROXY=true (one proxy that appends, as nginx's $proxy_add_x_forwarded_for)", () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi({ RATE_LIMIT: "on", TRUST_PROXY: "true", LOG_LEVEL: "error" });
  });
  afterAll(async () => {
    await api?.close();
  });

  test("13 wrong sign-ins from one client, each with another forged first entry and the same real last one: the 11th is 429, as without forged entries", () =>
    inOneWindow(async () => {
      const real = nextAddress();
      const withForged: number[] = [];
      for (let i = 0; i < 13; i++) {
        withForged.push(await wrongSignIn(api, anyone(), { "x-forwarded-for": `${forged(i)}, ${real}` }));
      }
      expect(withForged).toEqual(SIGN_IN_REFUSALS);

      const plain = nextAddress();
      const without: number[] = [];
      for (let i = 0; i < 13; i++) without.push(await wrongSignIn(api, anyone(), { "x-forwarded-for": plain }));
      expect(without).toEqual(SIGN_IN_REFUSALS);
    }, LIMITS.passwordFromAddress));

  test("distinct last entries are distinct clients, whatever the first entry says", () =>
    inOneWindow(async () => {
      const [a, b] = [nextAddress(), nextAddress()];
      const first = "192.0.2.1"; // the same forged first entry for both
      for (let i = 0; i < 10; i++) {
        expect(await wrongSignIn(api, anyone(), { "x-forwarded-for": `${first}, ${a}` })).toBe(401);
      }
      expect(await wrongSignIn(api, anyone(), { "x-forwarded-for": `${first}, ${a}` })).toBe(429);
      expect(await wrongSignIn(api, anyone(), { "x-forwarded-for": `${first}, ${b}` })).toBe(401);
      expect(await wrongSignIn(api, anyone(), { "x-forwarded-for": b })).toBe(401);
    }, LIMITS.passwordFromAddress));

  test("several X-Forwarded-For headers are one list: only the last entry of the last header counts", () =>
    inOneWindow(async () => {
      const real = nextAddress();
      const statuses: number[] = [];
      for (let i = 0; i < 13; i++) {
        const headers = new Headers();
        headers.append("x-forwarded-for", `${forged(i)}, ${forged(i + 1)}`);
        headers.append("x-forwarded-for", real);
        const res = await api.fetch("/api/auth/sign-in/email", {
          method: "POST",
          headers,
          body: { email: anyone(), password: "not the password" },
        });
        await res.arrayBuffer();
        statuses.push(res.status);
      }
      expect(statuses).toEqual(SIGN_IN_REFUSALS);
    }, LIMITS.passwordFromAddress));

  test("the header that carries the address to better-auth cannot be written by a client", () =>
    inOneWindow(async () => {
      const real = nextAddress();
      const statuses: number[] = [];
      for (let i = 0; i < 13; i++) {
        statuses.push(await wrongSignIn(api, anyone(), { "x-forwarded-for": real, [CLIENT_IP_HEADER]: nextAddress() }));
      }
      expect(statuses).toEqual(SIGN_IN_REFUSALS);
    }, LIMITS.passwordFromAddress));

  test("…not even when the request's headers cannot be changed in place (the request is copied)", () =>
    inOneWindow(async () => {
      const app = createApp(api.ctx);
      const real = nextAddress();
      class FixedHeaders extends Headers {
        override set(): void {
          throw new TypeError("immutable");
        }
        override delete(): void {
          throw new TypeError("immutable");
        }
      }
      const statuses: number[] = [];
      for (let i = 0; i < 13; i++) {
        const headers = new FixedHeaders({
          origin: api.origin,
          "content-type": "application/json",
          "x-forwarded-for": `${forged(i)}, ${real}`,
          [CLIENT_IP_HEADER]: nextAddress(),
        });
        const request = new Request(`${api.url}/api/auth/sign-in/email`, {
          method: "POST",
          headers,
          body: JSON.stringify({ email: anyone(), password: "not the password" }),
        });
        Object.defineProperty(request, "headers", { value: headers });
        expect(() => request.headers.set(CLIENT_IP_HEADER, "1.2.3.4")).toThrow("immutable");
        // No socket here: the address comes from X-Forwarded-For alone (TRUST_PROXY=true).
        const res = await app.fetch(request, {});
        await res.arrayBuffer();
        statuses.push(res.status);
      }
      expect(statuses).toEqual(SIGN_IN_REFUSALS);
    }, LIMITS.passwordFromAddress));

  test("sign-up: the 6th from one client is 429, whatever its first entries; another client is not limited", () =>
    inOneWindow(async () => {
      const [a, b] = [nextAddress(), nextAddress()];
      const attempt = async (forwardedFor: string) => {
        const res = await api.fetch("/api/auth/sign-up/email", {
          method: "POST",
          headers: { "x-forwarded-for": forwardedFor },
          body: { email: `su-${crypto.randomUUID().slice(0, 8)}@example.com`, password: PASSWORD, name: "S" },
        });
        await res.arrayBuffer();
        return res.status;
      };
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push(await attempt(`${forged(i)}, ${a}`));
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
      expect(await attempt(`${forged(99)}, ${a}`)).toBe(429);
      expect(await attempt(a)).toBe(429);
      expect(await attempt(`${forged(99)}, ${b}`)).toBe(200);
    }, LIMITS.signUpFromAddress));

  test("password reset requests: the 6th from one client is 429, whatever its first entries; another client is not limited", () =>
    inOneWindow(async () => {
      const [a, b] = [nextAddress(), nextAddress()];
      const attempt = async (forwardedFor: string) => {
        const res = await api.fetch("/api/auth/request-password-reset", {
          method: "POST",
          headers: { "x-forwarded-for": forwardedFor },
          body: { email: `nobody-${crypto.randomUUID().slice(0, 6)}@example.com`, redirectTo: "/auth/reset-password" },
        });
        await res.arrayBuffer();
        return res.status;
      };
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push(await attempt(`${forged(i)}, ${a}`));
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
      expect(await attempt(`${forged(99)}, ${a}`)).toBe(429);
      expect(await attempt(`${forged(99)}, ${b}`)).toBe(200);
    }, LIMITS.resetRequestFromAddress));

  test(`public profile API: request ${LIMITS.publicProfile.max + 1} of a window from one client is 429, whatever its first entries; another client is not limited`, async () => {
    await inOneWindow(async () => {
      const [a, b] = [nextAddress(), nextAddress()];
      const get = (forwardedFor: string) => profileStatus(api, forwardedFor);
      const allowed = await inBatches(LIMITS.publicProfile.max, (i) => get(`${forged(i)}, ${a}`));
      expect(allowed.filter((s) => s !== 404)).toEqual([]);
      expect(await get(`${forged(1000)}, ${a}`)).toBe(429);
      expect(await get(a)).toBe(429);
      expect(await get(`${forged(1001)}, ${b}`)).toBe(404);
    }, LIMITS.publicProfile);
  });

  test("IPv6: one /64 is one client for better-auth's sign-in limit and for ours; another /64 is another", () =>
    inOneWindow(async () => {
      const prefix = `2001:db8:${nextNet()}`;
      const statuses: number[] = [];
      for (let i = 0; i < 13; i++) {
        statuses.push(await wrongSignIn(api, anyone(), { "x-forwarded-for": `${prefix}:0:${i.toString(16)}::1` }));
      }
      expect(statuses).toEqual(SIGN_IN_REFUSALS);
      expect(await wrongSignIn(api, anyone(), { "x-forwarded-for": `${prefix}:1::1` })).toBe(401);

      await inOneWindow(async () => {
        const net = `2001:db8:${nextNet()}:0`;
        const got = await inBatches(LIMITS.publicProfile.max, (i) => profileStatus(api, `${net}:${i.toString(16)}::1`));
        expect(got.filter((s) => s !== 404)).toEqual([]);
        expect(await profileStatus(api, `${net}:ffff::1`)).toBe(429);
        expect(await profileStatus(api, `[${net}::2]:443`)).toBe(429);
        expect(await profileStatus(api, `2001:db8:${nextNet()}::1`)).toBe(404);
      }, LIMITS.publicProfile);
    }, LIMITS.passwordFromAddress));

  test("uploads are limited per account: another address, real or forged, does not reset the count", async () => {
    const png = new Uint8Array(
      await sharp({ create: { width: 8, height: 8, channels: 3, background: "#4a8" } })
        .png()
        .toBuffer(),
    );
    let account: Account | undefined;
    const upload = async (forwardedFor: string) => {
      const form = new FormData();
      form.append("profileImage", new File([png], "a.png", { type: "image/png" }));
      const res = await api.fetch("/api/upload/profile-image", {
        method: "POST",
        headers: { cookie: account?.cookie ?? "", "x-forwarded-for": forwardedFor },
        body: form,
      });
      await res.arrayBuffer();
      return res.status;
    };
    await inOneWindow(async () => {
      account = await signUp(api, nextAddress());
      const statuses: number[] = [];
      for (let i = 0; i < LIMITS.upload.max; i++) statuses.push(await upload(`${forged(i)}, ${nextAddress()}`));
      expect(statuses.every((s) => s === 201)).toBe(true);
      expect(await upload(`${forged(50)}, ${nextAddress()}`)).toBe(429);
    }, LIMITS.upload);
  });
});

describe("TRUST_PROXY=2 (a CDN in front of nginx: two appended entries)", () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi({ RATE_LIMIT: "on", TRUST_PROXY: "2", LOG_LEVEL: "error" });
  });
  afterAll(async () => {
    await api?.close();
  });

  test("the client is the entry before the last; forged entries before it and the CDN's address after it change nothing", () =>
    inOneWindow(async () => {
      const [client, other] = [nextAddress(), nextAddress()];
      const statuses: number[] = [];
      for (let i = 0; i < 13; i++) {
        // Two CDN nodes, alternating: the last entry is the CDN's, not the client's.
        const cdn = `192.0.2.${50 + (i % 2)}`;
        statuses.push(await wrongSignIn(api, anyone(), { "x-forwarded-for": `${forged(i)}, ${client}, ${cdn}` }));
      }
      expect(statuses).toEqual(SIGN_IN_REFUSALS);
      expect(await wrongSignIn(api, anyone(), { "x-forwarded-for": `${client}, 192.0.2.52` })).toBe(429);
      expect(await wrongSignIn(api, anyone(), { "x-forwarded-for": `${other}, 192.0.2.50` })).toBe(401);
    }, LIMITS.passwordFromAddress));

  test("a request with fewer entries than hops counts as the socket's address (it did not come through the CDN)", async () => {
    // The socket's address cannot be made fresh for a second try across a window's edge (the
    // try's hits after the edge would count against it): start where the window has room.
    await freshMinute(30);
    await inOneWindow(async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 13; i++) {
        // A different single entry each time: were it taken as the client, none would be limited.
        statuses.push(await wrongSignIn(api, anyone(), { "x-forwarded-for": nextAddress() }));
      }
      expect(statuses).toEqual(SIGN_IN_REFUSALS);
    }, LIMITS.passwordFromAddress);
  }, 90_000);
});

describe("TRUST_PROXY=false (clients reach the app directly)", () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi({ RATE_LIMIT: "on", TRUST_PROXY: "false", LOG_LEVEL: "error" });
  });
  afterAll(async () => {
    await api?.close();
  });

  test("X-Forwarded-For and the internal address header are ignored: every request is the socket's", async () => {
    // Every request is the socket's address, which no second try can change: start where the
    // window has room (a try straddling the edge left its later hits in the next window).
    await freshMinute(30);
    await inOneWindow(async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 13; i++) {
        const address = nextAddress();
        statuses.push(
          await wrongSignIn(api, anyone(), {
            "x-forwarded-for": `${forged(i)}, ${address}`,
            [CLIENT_IP_HEADER]: address,
          }),
        );
      }
      expect(statuses).toEqual(SIGN_IN_REFUSALS);
    }, LIMITS.passwordFromAddress);
  }, 90_000);
});

describe.skipIf(skipWithoutBuild("client-address.test.ts: the built server (server.ts), TRUST_PROXY=1"))(
  "the built server (server.ts), TRUST_PROXY=1",
  () => {
    let db: SharedDatabase;
    let server: Instance;
    beforeAll(async () => {
      db = await sharedDatabase();
      server = await startInstance({ ...db.env, RATE_LIMIT: "on", TRUST_PROXY: "1", LOG_LEVEL: "info" });
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
      await db?.drop();
    });

    const signIn = async (forwardedFor: string, streamed = false) => {
      const body = JSON.stringify({ email: anyone(), password: "not the password" });
      const res = await fetch(`${server.url}/api/auth/sign-in/email`, {
        method: "POST",
        headers: { origin: server.url, "content-type": "application/json", "x-forwarded-for": forwardedFor },
        // A stream has no Content-Length: server.ts hands the app a copy of the request.
        body: streamed ? new Blob([body]).stream() : body,
      });
      await res.arrayBuffer();
      return res.status;
    };

    test("forged first entries do not change the counted address, for streamed bodies too", () =>
      inOneWindow(async () => {
        const [a, b] = [nextAddress(), nextAddress()];
        const statuses: number[] = [];
        for (let i = 0; i < 13; i++) statuses.push(await signIn(`${forged(i)}, ${a}`, i % 2 === 1));
        expect(statuses).toEqual(SIGN_IN_REFUSALS);
        expect(await signIn(`${forged(77)}, ${a}`, true)).toBe(429);
        expect(await signIn(`${forged(77)}, ${b}`, true)).toBe(401);
      }, LIMITS.passwordFromAddress));

    test("the request log line carries the address decided, not a forged entry", async () => {
      const real = "203.0.113.77";
      const res = await fetch(`${server.url}/api/profile/no_such_user_here`, {
        headers: { "x-forwarded-for": `198.51.100.66, ${real}` },
      });
      expect(res.status).toBe(404);
      const line = await waitForLine(server, (l) => l.msg === "request" && l.path === "/api/profile/no_such_user_here");
      expect(line.ip).toBe(real);
      expect(server.server.output()).not.toContain("198.51.100.66");
    });
  },
);

/** The profile API's status for a request with this X-Forwarded-For (no such profile: 404). */
async function profileStatus(api: TestApi, forwardedFor: string): Promise<number> {
  const res = await api.fetch("/api/profile/no_such_user_here", { headers: { "x-forwarded-for": forwardedFor } });
  await res.arrayBuffer();
  return res.status;
}

/** `n` calls, `size` at a time; their results in order. */
async function inBatches<T>(n: number, call: (i: number) => Promise<T>, size = 25): Promise<T[]> {
  const out: T[] = [];
  for (let start = 0; start < n; start += size) {
    const batch = Array.from({ length: Math.min(size, n - start) }, (_, k) => call(start + k));
    out.push(...(await Promise.all(batch)));
  }
  return out;
}

/** The first JSON log line of the server that matches, once it has been written. */
async function waitForLine(server: Instance, match: (line: Record<string, unknown>) => boolean) {
  const deadline = Date.now() + 5000;
  for (;;) {
    for (const text of server.server.output().split("\n")) {
      let line: Record<string, unknown>;
      try {
        line = JSON.parse(text) as Record<string, unknown>;
      } catch {
        continue; // not a JSON line, or not all of it written yet
      }
      if (match(line)) return line;
    }
    if (Date.now() > deadline) throw new Error(`no such log line in:\n${server.server.output()}`);
    await Bun.sleep(10);
  }
}
