/**
 * The authorization matrix: every /api route (from `app.routes`) and every page (from
 * src/pages) × five visitors (out, other, free, premium, noname), with the status each must
 * get. A route or page without a row fails, so a new endpoint cannot ship without someone
 * deciding who may call it. "other" cells also check that the owner's data is unchanged and
 * nothing private leaks; every cell checks that a premium `vip`'s private fields reach no one.
 * Against the built server with billing on (the Stripe fake); PGlite or TEST_DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { eq } from "drizzle-orm";
import sharp from "sharp";
import { createApp } from "../../api/app";
import type { AppContext } from "../../api/lib/context";
import { users } from "../../db/schema";
import { PRODUCT_NAME } from "../../src/lib/constants";
import { dateIn } from "../../src/lib/dates";
import { type FakeStripe, startFakeStripe } from "../fakes/stripe-server";
import { type Instance, type SharedDatabase, sharedDatabase, startInstance } from "../support/instances";
import { ROOT, skipWithoutBuild } from "../support/process";

type Persona = "out" | "other" | "free" | "premium" | "noname";
const PERSONAS: Persona[] = ["out", "other", "free", "premium", "noname"];

interface Expect {
  status: number;
  /** For redirects: the Location must match. */
  location?: RegExp;
  /** The body must contain this (e.g. the setup screen). */
  contains?: string;
}
type Cell = number | Expect;

interface Call {
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** Send as the persona's fresh session (for calls that end a session). */
  freshSession?: boolean;
}

interface Row {
  /** `METHOD /path` as in app.routes, or `page src/pages/…` for a page file. */
  route: string;
  what?: string;
  /** The request for a persona (may create what it needs first). */
  call: (p: Persona) => Promise<Call> | Call;
  expect: Record<Persona, Cell>;
  /** Extra checks on the answer. */
  after?: (p: Persona, res: Response, body: string) => Promise<void> | void;
}

interface Account {
  id: string;
  email: string;
  password: string;
  cookie: string;
  username: string | null;
}

let db: SharedDatabase;
let server: Instance;
let fake: FakeStripe;
const accounts = {} as Record<Exclude<Persona, "out">, Account>;
let ownerImage = "";
const NOTES_MARKER = `private-notes-${crypto.randomUUID().slice(0, 8)}`;
let png: Uint8Array<ArrayBuffer>;
/** A premium user who is no persona: what they keep private must reach no one. */
let vip: Account;
const VIP_SECRET = crypto.randomUUID().slice(0, 8);
const VIP = {
  supplement: `Ashwagandha ${VIP_SECRET}`,
  notes: `vip-private-notes-${VIP_SECRET}`,
  affiliateLink: `https://shop.example/vip-private-affiliate-${VIP_SECRET}`,
  stripeCustomerId: `cus_VIPPRIVATE${VIP_SECRET}`,
  stripeSubscriptionId: `sub_VIPPRIVATE${VIP_SECRET}`,
};

const cookieOf = (res: Response) =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0] ?? "")
    .filter((c) => c && !c.endsWith("="))
    .join("; ");

async function http(
  path: string,
  init: { method?: string; body?: unknown; cookie?: string; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { origin: server.url, ...(init.headers ?? {}) };
  if (init.cookie) headers.cookie = init.cookie;
  let body: BodyInit | undefined;
  if (init.body instanceof FormData) body = init.body;
  else if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers["content-type"] ??= "application/json";
  }
  return fetch(`${server.url}${path}`, { method: init.method ?? "GET", headers, body, redirect: "manual" });
}

async function signUp(name: string): Promise<Account> {
  const email = `authz-${name}-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const password = "correct horse battery";
  const res = await http("/api/auth/sign-up/email", {
    method: "POST",
    body: { email, password, name: `Authz ${name}` },
  });
  expect(res.status).toBe(200);
  const { user } = (await res.json()) as { user: { id: string } };
  return { id: user.id, email, password, cookie: cookieOf(res), username: null };
}

async function signIn(account: Account): Promise<string> {
  const res = await http("/api/auth/sign-in/email", {
    method: "POST",
    body: { email: account.email, password: account.password },
  });
  expect(res.status).toBe(200);
  return cookieOf(res);
}

async function setUsername(account: Account, username: string) {
  const res = await http("/api/profile", { method: "PUT", cookie: account.cookie, body: { username } });
  expect(res.status).toBe(200);
  account.username = username;
}

const cookie = (p: Persona) => (p === "out" ? undefined : accounts[p].cookie);
/** Whose resources a persona's request is aimed at: another user aims at the free owner's. */
const target = (p: Persona): Account => (p === "out" || p === "other" ? accounts.free : accounts[p]);

async function newSupplement(owner: Account): Promise<number> {
  const res = await http("/api/supplements", {
    method: "POST",
    cookie: owner.cookie,
    body: { name: "Magnesium", quantityType: "Capsule(s)", frequency: "daily", notes: NOTES_MARKER },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: number }).id;
}

/** A push subscription of `owner` (a made-up endpoint: nothing is sent to it). */
async function newPushSubscription(owner: Account): Promise<string> {
  const res = await http("/api/push/subscriptions", {
    method: "POST",
    cookie: owner.cookie,
    body: {
      endpoint: `https://fcm.googleapis.com/fcm/send/${crypto.randomUUID()}`,
      keys: { p256dh: `B${"A".repeat(86)}`, auth: "A".repeat(22) },
    },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

async function ownIds(owner: Account): Promise<number[]> {
  const res = await http("/api/supplements", { cookie: owner.cookie });
  return ((await res.json()) as { id: number }[]).map((s) => s.id);
}

/** What the owner can see of their own account: it must not change when another user calls. */
async function ownerState(owner: Account): Promise<string> {
  const [me, list] = await Promise.all([
    http("/api/auth/user", { cookie: owner.cookie }).then((r) => r.json()),
    http("/api/supplements", { cookie: owner.cookie }).then((r) => r.json()),
  ]);
  return JSON.stringify({ me, list });
}

const redirectToLogin = (path: string): Expect => ({
  status: 302,
  location: new RegExp(`^/api/login\\?redirectTo=${encodeURIComponent(path).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`),
});
const SETUP = { status: 200, contains: `Welcome to ${PRODUCT_NAME}` } satisfies Expect;
const all = (cell: Cell): Record<Persona, Cell> => ({
  out: cell,
  other: cell,
  free: cell,
  premium: cell,
  noname: cell,
});
const signedIn = (out: Cell, cell: Cell): Record<Persona, Cell> => ({
  out,
  other: cell,
  free: cell,
  premium: cell,
  noname: cell,
});

const ROWS: Row[] = [
  // ---------------------------------------------------------------- ours
  { route: "GET /api/health", call: () => ({ method: "GET", path: "/api/health" }), expect: all(200) },
  { route: "GET /api/auth/user", call: () => ({ method: "GET", path: "/api/auth/user" }), expect: signedIn(401, 200) },
  {
    route: "GET /api/login",
    call: () => ({ method: "GET", path: "/api/login?redirectTo=/billing" }),
    expect: all({ status: 302, location: /^\/auth\/sign-in\?redirectTo=%2Fbilling$/ }),
  },
  {
    route: "GET /api/logout",
    call: () => ({ method: "GET", path: "/api/logout", freshSession: true }),
    expect: all({ status: 302, location: /^\/$/ }),
  },
  {
    route: "POST /api/logout",
    call: () => ({ method: "POST", path: "/api/logout", freshSession: true }),
    expect: all({ status: 303, location: /^\/$/ }),
  },
  {
    route: "GET /api/profile/:username",
    call: () => ({ method: "GET", path: `/api/profile/${accounts.free.username}` }),
    expect: all(200),
  },
  {
    route: "GET /api/profile/:username",
    what: "a premium user's public profile: the list, without notes, links, e-mail or Stripe ids",
    call: () => ({ method: "GET", path: `/api/profile/${vip.username}` }),
    expect: all({ status: 200, contains: VIP.supplement }),
    after: (_p, _res, body) => {
      expect((JSON.parse(body) as { user: { isPremium: boolean } }).user.isPremium).toBe(true);
    },
  },
  {
    route: "GET /api/profile/:username",
    what: "a user without a username has no public profile",
    call: () => ({ method: "GET", path: `/api/profile/${accounts.noname.id.replace(/[^A-Za-z0-9_]/g, "_")}` }),
    expect: all(404),
  },
  {
    route: "PUT /api/profile",
    what: "edits only the caller's own profile",
    call: () => ({ method: "PUT", path: "/api/profile", body: { bio: "edited by the caller" } }),
    expect: signedIn(401, 200),
  },
  {
    route: "GET /api/supplements",
    call: () => ({ method: "GET", path: "/api/supplements" }),
    expect: signedIn(401, 200),
  },
  {
    route: "POST /api/supplements",
    call: () => ({
      method: "POST",
      path: "/api/supplements",
      body: { name: "Zinc", quantityType: "Tablet(s)", frequency: "daily" },
    }),
    expect: signedIn(401, 201),
  },
  {
    route: "PUT /api/supplements/reorder",
    what: "the target's ids, reversed",
    call: async (p) => {
      const owner = target(p);
      await newSupplement(owner);
      return {
        method: "PUT",
        path: "/api/supplements/reorder",
        body: { supplementIds: (await ownIds(owner)).reverse() },
      };
    },
    expect: { out: 401, other: 400, free: 200, premium: 200, noname: 200 },
  },
  {
    route: "GET /api/supplements/:id",
    call: async (p) => ({ method: "GET", path: `/api/supplements/${await newSupplement(target(p))}` }),
    expect: { out: 401, other: 404, free: 200, premium: 200, noname: 200 },
  },
  {
    route: "PUT /api/supplements/:id",
    call: async (p) => ({
      method: "PUT",
      path: `/api/supplements/${await newSupplement(target(p))}`,
      body: { name: "Changed", quantityType: "Other", frequency: "weekly" },
    }),
    expect: { out: 401, other: 404, free: 200, premium: 200, noname: 200 },
  },
  {
    route: "DELETE /api/supplements/:id",
    call: async (p) => ({ method: "DELETE", path: `/api/supplements/${await newSupplement(target(p))}` }),
    expect: { out: 401, other: 404, free: 204, premium: 204, noname: 204 },
  },
  {
    route: "POST /api/supplements/:id/restore",
    what: "Undo of a delete: only the owner's own deleted supplement comes back",
    call: async (p) => {
      const id = await newSupplement(target(p));
      const gone = await http(`/api/supplements/${id}`, { method: "DELETE", cookie: target(p).cookie });
      expect(gone.status).toBe(204);
      return { method: "POST", path: `/api/supplements/${id}/restore` };
    },
    expect: { out: 401, other: 404, free: 201, premium: 201, noname: 201 },
  },
  // Stock (issue 40): the owner's own; another's supplement is a 404, like the routes above.
  {
    route: "PUT /api/supplements/:id/stock",
    call: async (p) => ({
      method: "PUT",
      path: `/api/supplements/${await newSupplement(target(p))}/stock`,
      body: { count: 30, unitsPerPack: 60 },
    }),
    expect: { out: 401, other: 404, free: 200, premium: 200, noname: 200 },
  },
  {
    route: "POST /api/supplements/:id/refills",
    call: async (p) => {
      const id = await newSupplement(target(p));
      const sized = await http(`/api/supplements/${id}/stock`, {
        method: "PUT",
        cookie: target(p).cookie,
        body: { unitsPerPack: 60 },
      });
      expect(sized.status).toBe(200);
      return { method: "POST", path: `/api/supplements/${id}/refills`, body: { packs: 1 } };
    },
    expect: { out: 401, other: 404, free: 201, premium: 201, noname: 201 },
  },
  // Tracking (issue 19): private to the owner. A real server, so the real today (UTC: no zone set).
  { route: "GET /api/today", call: () => ({ method: "GET", path: "/api/today" }), expect: signedIn(401, 200) },
  { route: "GET /api/history", call: () => ({ method: "GET", path: "/api/history" }), expect: signedIn(401, 200) },
  // The report for the doctor (issue 50 §2): the signed-in user's own.
  { route: "GET /api/report", call: () => ({ method: "GET", path: "/api/report" }), expect: signedIn(401, 200) },
  {
    route: "GET /api/report.csv",
    call: () => ({ method: "GET", path: "/api/report.csv" }),
    expect: signedIn(401, 200),
  },
  // Issue 47: the nutrient table is public; the day's totals are the owner's only.
  { route: "GET /api/nutrients", call: () => ({ method: "GET", path: "/api/nutrients" }), expect: signedIn(200, 200) },
  {
    route: "GET /api/stack/totals",
    call: () => ({ method: "GET", path: "/api/stack/totals" }),
    expect: signedIn(401, 200),
  },
  {
    route: "PUT /api/intakes/:date/:supplementId/:time",
    what: "ticks the target's supplement for today",
    call: async (p) => ({
      method: "PUT",
      path: `/api/intakes/${dateIn(null, new Date())}/${await newSupplement(target(p))}/anytime`,
      body: { status: "taken" },
    }),
    expect: { out: 401, other: 404, free: 200, premium: 200, noname: 200 },
  },
  {
    route: "PUT /api/intakes/:date",
    what: "Take all with the target's supplement among the doses",
    call: async (p) => ({
      method: "PUT",
      path: `/api/intakes/${dateIn(null, new Date())}`,
      body: { status: "taken", doses: [{ supplementId: await newSupplement(target(p)), time: "anytime" }] },
    }),
    expect: { out: 401, other: 404, free: 200, premium: 200, noname: 200 },
  },
  {
    route: "DELETE /api/intakes/:date/:supplementId/:time",
    call: async (p) => ({
      method: "DELETE",
      path: `/api/intakes/${dateIn(null, new Date())}/${await newSupplement(target(p))}/anytime`,
    }),
    expect: { out: 401, other: 404, free: 204, premium: 204, noname: 204 },
  },
  // The calendar feed's settings (issue 50): the signed-in user's own; a reset while off is 409.
  { route: "GET /api/calendar", call: () => ({ method: "GET", path: "/api/calendar" }), expect: signedIn(401, 200) },
  {
    route: "PUT /api/calendar",
    call: () => ({ method: "PUT", path: "/api/calendar", body: { hideNames: true } }),
    expect: signedIn(401, 200),
  },
  {
    route: "POST /api/calendar/reset",
    what: "the feed is off",
    call: () => ({ method: "POST", path: "/api/calendar/reset", body: {} }),
    expect: signedIn(401, 409),
  },
  {
    route: "GET /api/calendar/:file{[^/]+\\.ics}",
    what: "an address no feed has: 404 for everyone, signed in or not (the token is the key)",
    call: () => ({ method: "GET", path: `/api/calendar/${"A".repeat(43)}.ics` }),
    expect: { out: 404, other: 404, free: 404, premium: 404, noname: 404 },
  },
  // Reminders (issue 39): the signed-in user's own; the unsubscribe link needs its signature.
  { route: "GET /api/reminders", call: () => ({ method: "GET", path: "/api/reminders" }), expect: signedIn(401, 200) },
  {
    route: "PUT /api/reminders",
    call: () => ({ method: "PUT", path: "/api/reminders", body: { followUpMinutes: 30 } }),
    expect: signedIn(401, 200),
  },
  {
    route: "POST /api/reminders/test",
    what: "no channel on: refused before anything is sent",
    call: () => ({ method: "POST", path: "/api/reminders/test", body: {} }),
    expect: signedIn(401, 400),
  },
  // "Copy this stack" (issue 50 §3): signed in; a name nobody has is a 404 (the budget spent first).
  {
    route: "POST /api/copies",
    what: "a name nobody has",
    call: () => ({ method: "POST", path: "/api/copies", body: { from: "nobody-has-this-name", supplementIds: [1] } }),
    expect: signedIn(401, 404),
  },
  {
    route: "GET /api/reminders/confirm",
    what: "a forged confirmation link (issue 45)",
    call: () => ({ method: "GET", path: `/api/reminders/confirm?token=${"A".repeat(43)}` }),
    expect: all(400),
  },
  {
    route: "GET /api/reminders/unsubscribe",
    what: "a forged link",
    call: () => ({ method: "GET", path: `/api/reminders/unsubscribe?u=${accounts.free.id}&t=${"A".repeat(43)}` }),
    expect: all(400),
  },
  {
    route: "POST /api/reminders/unsubscribe",
    what: "a forged link",
    call: () => ({
      method: "POST",
      path: `/api/reminders/unsubscribe?u=${accounts.free.id}&t=${"A".repeat(43)}`,
      body: "List-Unsubscribe=One-Click",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    }),
    expect: all(400),
  },
  {
    route: "GET /api/push/key",
    what: "the VAPID public key",
    call: () => ({ method: "GET", path: "/api/push/key" }),
    expect: all(200),
  },
  {
    route: "POST /api/push/subscriptions",
    call: () => ({
      method: "POST",
      path: "/api/push/subscriptions",
      body: {
        endpoint: `https://fcm.googleapis.com/fcm/send/${crypto.randomUUID()}`,
        keys: { p256dh: `B${"A".repeat(86)}`, auth: "A".repeat(22) },
      },
    }),
    expect: signedIn(401, 201),
  },
  {
    route: "DELETE /api/push/subscriptions/:id",
    call: async (p) => ({ method: "DELETE", path: `/api/push/subscriptions/${await newPushSubscription(target(p))}` }),
    expect: { out: 401, other: 404, free: 204, premium: 204, noname: 204 },
  },
  {
    route: "POST /api/upload/profile-image",
    call: () => {
      const form = new FormData();
      form.append("profileImage", new File([png], "a.png", { type: "image/png" }));
      return { method: "POST", path: "/api/upload/profile-image", body: form };
    },
    expect: signedIn(401, 201),
  },
  {
    route: "GET /images/:file",
    what: "avatars are public",
    call: () => ({ method: "GET", path: ownerImage }),
    expect: all(200),
  },
  { route: "HEAD /images/:file", call: () => ({ method: "HEAD", path: ownerImage }), expect: all(200) },
  // Issue 14: 'View Product' redirects are public, for a premium member's links only.
  {
    route: "GET /go/:id",
    what: "a premium member's link: a redirect for everyone",
    call: async () => ({ method: "GET", path: `/go/${(await ownIds(vip))[0]}` }),
    expect: all({ status: 302, location: /^https:\/\/shop\.example\/vip-private-affiliate-/ }),
  },
  {
    route: "GET /go/:id",
    what: "a free member's supplement: the 404 page for everyone",
    call: async () => ({ method: "GET", path: `/go/${await newSupplement(accounts.free)}` }),
    // As every unknown path: without a username the 404 shows the setup screen.
    expect: {
      ...all({ status: 404, contains: "404 Page Not Found" }),
      noname: { status: 404, contains: SETUP.contains },
    },
  },
  {
    route: "GET /api/insights",
    what: "the caller's own counts",
    call: () => ({ method: "GET", path: "/api/insights?days=7" }),
    expect: signedIn(401, 200),
  },
  // Sharing (issue 16): public for everyone; a malformed card version or a missing name is 404.
  {
    route: "GET /og/:username/:file",
    what: "the social card is public (the page's og:image; a version never recorded is 404, sharing.test.ts)",
    call: async () => {
      const page = await (await http(`/${accounts.free.username}`)).text();
      const image = /<meta property="og:image" content="([^"]+)"/.exec(page)?.[1] ?? "";
      return { method: "GET", path: new URL(image).pathname };
    },
    expect: all(200),
  },
  {
    route: "HEAD /og/:username/:file",
    call: () => ({ method: "HEAD", path: "/og/nobody_here_at_all/AAAAAAAAAAAAAAAA.png" }),
    expect: all(404),
  },
  {
    route: "GET /:username/qr.svg",
    what: "the QR code is public",
    call: () => ({ method: "GET", path: `/${accounts.free.username}/qr.svg` }),
    expect: all(200),
  },
  {
    route: "HEAD /:username/qr.svg",
    call: () => ({ method: "HEAD", path: "/nobody_here_at_all/qr.svg" }),
    expect: all(404),
  },
  // Billing: each acts on the caller's own account. The portal comes before subscribing,
  // while no one has a Stripe customer yet.
  {
    route: "POST /api/create-portal-session",
    call: () => ({ method: "POST", path: "/api/create-portal-session" }),
    expect: signedIn(401, 400),
  },
  {
    route: "POST /api/cancel-subscription",
    call: () => ({ method: "POST", path: "/api/cancel-subscription" }),
    expect: signedIn(401, 400),
  },
  { route: "GET /api/billing", call: () => ({ method: "GET", path: "/api/billing" }), expect: signedIn(401, 200) },
  {
    route: "POST /api/get-or-create-subscription",
    call: () => ({ method: "POST", path: "/api/get-or-create-subscription" }),
    expect: { out: 401, other: 200, free: 200, premium: 400, noname: 200 },
  },
  {
    route: "POST /api/stripe/webhook",
    what: "a session is no credential: without a valid signature every caller gets 400",
    call: () => ({
      method: "POST",
      path: "/api/stripe/webhook",
      body: { id: "evt_forged", type: "customer.subscription.updated" },
      headers: { "stripe-signature": "t=1,v1=deadbeef" },
    }),
    expect: all(400),
  },
  // Issue 15, the caller's own account: every route acts on the caller alone.
  { route: "GET /api/account", call: () => ({ method: "GET", path: "/api/account" }), expect: signedIn(401, 200) },
  {
    route: "GET /api/account/export",
    what: "the caller's own data only",
    call: () => ({ method: "GET", path: "/api/account/export?format=json" }),
    expect: signedIn(401, 200),
    after: (p, _res, body) => {
      if (p !== "out") expect(body).toContain(accounts[p].email);
    },
  },
  {
    route: "DELETE /api/account",
    what: "a wrong confirmation: refused, and the account stays",
    call: () => ({
      method: "DELETE",
      path: "/api/account",
      body: { password: "correct horse battery", confirm: "not-my-name" },
    }),
    expect: signedIn(401, 400),
    after: async (p) => {
      if (p === "out") return;
      expect((await http("/api/auth/user", { cookie: accounts[p].cookie })).status).toBe(200);
    },
  },
  {
    route: "POST /api/account/password",
    what: "needs the current password",
    call: () => ({
      method: "POST",
      path: "/api/account/password",
      body: { currentPassword: "not the password", newPassword: "another long password" },
    }),
    expect: signedIn(401, 400),
  },
  {
    route: "POST /api/account/email",
    what: "sends a link to the new address; nothing changes until it is opened",
    call: () => ({
      method: "POST",
      path: "/api/account/email",
      body: {
        newEmail: `moved-${crypto.randomUUID().slice(0, 8)}@example.com`,
        currentPassword: "correct horse battery",
      },
    }),
    expect: signedIn(401, 200),
    after: async (p) => {
      if (p === "out") return;
      const me = (await (await http("/api/auth/user", { cookie: accounts[p].cookie })).json()) as { email: string };
      expect(me.email).toBe(accounts[p].email);
    },
  },
  {
    route: "GET /api/account/email/confirm",
    what: "a link no one was sent: /settings says it no longer works, whoever opens it",
    call: () => ({ method: "GET", path: "/api/account/email/confirm?token=not-a-token" }),
    expect: all({ status: 303, location: /^\/settings\?email=link-invalid$/ }),
  },
  {
    route: "GET /api/account/sessions",
    call: () => ({ method: "GET", path: "/api/account/sessions" }),
    expect: signedIn(401, 200),
  },
  {
    route: "DELETE /api/account/sessions/:id",
    what: "a session of the target's: another user gets 404 and it goes on",
    call: async (p) => {
      const owner = target(p);
      const second = await signIn(owner);
      const list = (await (await http("/api/account/sessions", { cookie: second })).json()) as {
        id: string;
        current: boolean;
      }[];
      const id = list.find((s) => s.current)?.id as string;
      return { method: "DELETE", path: `/api/account/sessions/${id}` };
    },
    expect: { out: 401, other: 404, free: 200, premium: 200, noname: 200 },
  },
  {
    route: "POST /api/account/sessions/revoke-others",
    what: "ends every other session of the caller",
    call: () => ({ method: "POST", path: "/api/account/sessions/revoke-others", freshSession: true }),
    expect: signedIn(401, 200),
    after: async (p) => {
      if (p === "out") return;
      expect((await http("/api/auth/user", { cookie: accounts[p].cookie })).status).toBe(401);
      accounts[p].cookie = await signIn(accounts[p]);
    },
  },
  // better-auth's catch-all serves only the paths the product calls (api/auth/paths.ts, issue 36):
  // the endpoints a browser session could once reach answer 404, signed in or not, and change nothing.
  ...(
    [
      ["GET", "/api/auth/get-session", undefined],
      ["GET", "/api/auth/list-sessions", undefined],
      ["POST", "/api/auth/update-user", { isPremium: true, username: "hijacked_name", email: "hijack@example.com" }],
      ["POST", "/api/auth/change-password", { currentPassword: "not the password", newPassword: "another long one" }],
      ["POST", "/api/auth/change-email", { newEmail: "hijack@example.com" }],
      ["POST", "/api/auth/send-verification-email", { email: "someone@example.com" }],
      ["POST", "/api/auth/revoke-sessions", {}],
      ["POST", "/api/auth/sign-out", {}],
      ["POST", "/api/auth/delete-user", {}],
    ] as const
  ).map(
    ([method, path, body]): Row => ({
      route: `${method} /api/auth/*`,
      what: `${path.slice("/api/auth/".length)} is not served`,
      call: () => ({ method, path, ...(body ? { body } : {}) }),
      expect: all(404),
      after: async (p) => {
        if (p === "out") return;
        const me = (await (await http("/api/auth/user", { cookie: accounts[p].cookie })).json()) as Record<
          string,
          unknown
        >;
        expect(me.isPremium).toBe(p === "premium");
        expect(me.username).toBe(accounts[p].username);
        expect(me.email).toBe(accounts[p].email);
      },
    }),
  ),

  // ---------------------------------------------------------------- pages
  {
    route: "page sw.js.ts",
    what: "the service worker (issue 39): the same script for everyone, nothing personal",
    call: () => ({ method: "GET", path: "/sw.js" }),
    expect: all({ status: 200, contains: "Mark all taken" }),
  },
  {
    route: "page index.astro",
    call: () => ({ method: "GET", path: "/" }),
    expect: {
      out: { status: 200, contains: "Log In" },
      other: { status: 200, contains: "Dashboard" },
      free: { status: 200, contains: "Dashboard" },
      premium: { status: 200, contains: "Dashboard" },
      noname: SETUP,
    },
  },
  {
    route: "page dashboard.astro",
    call: () => ({ method: "GET", path: "/dashboard" }),
    expect: {
      out: { status: 302, location: /^\/$/ },
      other: 200,
      free: 200,
      premium: 200,
      noname: SETUP,
    },
  },
  {
    route: "page [username].astro",
    what: "the owner's public page: the same for everyone, nothing private",
    call: () => ({ method: "GET", path: `/${accounts.free.username}` }),
    expect: all({ status: 200, contains: "Magnesium" }),
  },
  {
    route: "page [username].astro",
    what: "a premium user's public page: the list, without notes, links, e-mail or Stripe ids",
    call: () => ({ method: "GET", path: `/${vip.username}` }),
    expect: all({ status: 200, contains: VIP.supplement }),
  },
  {
    route: "page 404.astro",
    call: () => ({ method: "GET", path: "/no/such/page" }),
    // Without a username even an unknown path shows the setup screen (still a 404).
    expect: { out: 404, other: 404, free: 404, premium: 404, noname: { status: 404, contains: SETUP.contains } },
  },
  ...(
    [
      ["privacy", "What we store"],
      ["terms", "Your account and content"],
    ] as const
  ).map(
    ([name, text]): Row => ({
      route: `page ${name}.astro`,
      what: "the same plain page for everyone, signed in or not (issue 38)",
      call: () => ({ method: "GET", path: `/${name}` }),
      expect: all({ status: 200, contains: text }),
    }),
  ),
  ...(["sign-in", "sign-up", "forgot-password"] as const).map(
    (name): Row => ({
      route: `page auth/${name}.astro`,
      call: () => ({ method: "GET", path: `/auth/${name}` }),
      expect: signedIn(200, { status: 302, location: /^\/$/ }),
    }),
  ),
  {
    route: "page auth/reset-password.astro",
    what: "a reset link works whoever is signed in (the token is the credential)",
    call: () => ({ method: "GET", path: "/auth/reset-password?token=abc" }),
    expect: all(200),
  },
  {
    route: "page copy/[username].astro",
    what: "a name nobody has: sign up first, then the 404 page",
    call: () => ({ method: "GET", path: "/copy/nobody-has-this-name" }),
    expect: {
      out: { status: 302, location: /^\/auth\/sign-up\?redirectTo=%2Fcopy%2Fnobody-has-this-name$/ },
      other: 404,
      free: 404,
      premium: 404,
      noname: SETUP,
    },
  },
  ...(["billing", "subscribe", "profile/edit", "settings", "report"] as const).map(
    (name): Row => ({
      route: `page ${name}.astro`,
      call: () => ({ method: "GET", path: `/${name}` }),
      expect: { out: redirectToLogin(`/${name}`), other: 200, free: 200, premium: 200, noname: SETUP },
    }),
  ),
];

/** Routes as the app registers them (middleware left out). */
function appRoutes(): string[] {
  const app = createApp({} as AppContext);
  const out = new Set<string>();
  for (const r of app.routes) {
    if (r.method === "ALL" && r.path === "/*") continue; // the middleware
    out.add(`${r.method} ${r.path}`);
  }
  return [...out];
}

/** Page files (src/pages, less the dev-server catch-alls for /api, /images and /go). */
function pageFiles(): string[] {
  const dir = join(ROOT, "src/pages");
  const out: string[] = [];
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const full = join(folder, name);
      const rel = relative(dir, full);
      if (statSync(full).isDirectory()) {
        if (rel === "api" || rel === "images" || rel === "go") continue;
        walk(full);
      } else if (/\.(astro|ts|tsx|js|md|mdx|html)$/.test(name)) {
        out.push(`page ${rel.split("\\").join("/")}`);
      }
    }
  };
  walk(dir);
  return out;
}

describe("the matrix covers everything", () => {
  test("every /api route and every page has a row (a new one without a row fails here)", () => {
    const covered = new Set(ROWS.map((r) => r.route));
    const missing = [...appRoutes(), ...pageFiles()].filter((r) => !covered.has(r));
    expect(missing).toEqual([]);
  });

  test("no row names a route that no longer exists", () => {
    const known = new Set([...appRoutes(), ...pageFiles()]);
    expect(ROWS.map((r) => r.route).filter((r) => !known.has(r))).toEqual([]);
  });
});

describe.skipIf(skipWithoutBuild("authz-matrix.test.ts: authorization matrix (built server, billing on)"))(
  "authorization matrix (built server, billing on)",
  () => {
    beforeAll(async () => {
      png = new Uint8Array(
        await sharp({ create: { width: 32, height: 32, channels: 3, background: "#3a7" } })
          .png()
          .toBuffer(),
      );
      fake = await startFakeStripe({ autoDeliver: false });
      db = await sharedDatabase();
      const env = { ...db.env, ...fake.env() };
      server = await startInstance(env, { timeoutMs: 90_000 });
      for (const p of ["other", "free", "premium", "noname"] as const) accounts[p] = await signUp(p);
      const suffix = crypto.randomUUID().slice(0, 6);
      await setUsername(accounts.other, `other_${suffix}`);
      await setUsername(accounts.free, `owner_${suffix}`);
      await setUsername(accounts.premium, `premium_${suffix}`);
      vip = await signUp("vip");
      await setUsername(vip, `vip_${suffix}`);
      await newSupplement(accounts.free);
      // The free owner's avatar, to be fetched by everyone.
      const form = new FormData();
      form.append("profileImage", new File([png], "a.png", { type: "image/png" }));
      const up = await http("/api/upload/profile-image", { method: "POST", cookie: accounts.free.cookie, body: form });
      expect(up.status).toBe(201);
      ownerImage = ((await up.json()) as { imageUrl: string }).imageUrl;
      // Premium is set in the database (PGlite admits one process: stop the server meanwhile).
      if (db.kind === "pglite") await server.stop();
      await db.withDb(async (d) => {
        await d.update(users).set({ isPremium: true }).where(eq(users.id, accounts.premium.id));
        await d
          .update(users)
          .set({
            isPremium: true,
            subscriptionStatus: "active",
            stripeCustomerId: VIP.stripeCustomerId,
            stripeSubscriptionId: VIP.stripeSubscriptionId,
          })
          .where(eq(users.id, vip.id));
      });
      if (db.kind === "pglite") await server.restart();
      // The vip's notes and affiliate link are stored (premium) and shown to the vip alone.
      const added = await http("/api/supplements", {
        method: "POST",
        cookie: vip.cookie,
        body: {
          name: VIP.supplement,
          quantityType: "Capsule(s)",
          frequency: "daily",
          notes: VIP.notes,
          affiliateLink: VIP.affiliateLink,
        },
      });
      expect(added.status).toBe(201);
      const own = await (await http("/api/supplements", { cookie: vip.cookie })).text();
      expect(own).toContain(VIP.notes);
      expect(own).toContain(VIP.affiliateLink);
      fake.webhookUrl = `${server.url}/api/stripe/webhook`;
      const me = (await (await http("/api/auth/user", { cookie: accounts.premium.cookie })).json()) as {
        isPremium: boolean;
      };
      expect(me.isPremium).toBe(true);
    }, 90_000);

    afterAll(async () => {
      await server?.stop();
      await fake?.close();
      await db?.drop();
    });

    for (const row of ROWS) {
      for (const p of PERSONAS) {
        const cell = row.expect[p];
        const want: Expect = typeof cell === "number" ? { status: cell } : cell;
        test(`${row.route}${row.what ? ` (${row.what})` : ""} × ${p} → ${want.status}`, async () => {
          const call = await row.call(p);
          let sessionCookie = cookie(p);
          if (call.freshSession && p !== "out") sessionCookie = await signIn(accounts[p]);
          const before = p === "other" ? await ownerState(accounts.free) : "";
          const res = await http(call.path, {
            method: call.method,
            body: call.body,
            cookie: sessionCookie,
            headers: call.headers,
          });
          const body = await res.text();
          const where = `${call.method} ${call.path} as ${p}: ${res.status} ${body.slice(0, 300)}`;
          expect(res.status, where).toBe(want.status);
          if (want.location) expect(res.headers.get("location") ?? "", where).toMatch(want.location);
          if (want.contains) expect(body, where).toContain(want.contains);
          if (
            call.path.startsWith("/api/") &&
            res.status !== 204 &&
            !(res.status >= 300 && res.status < 400) &&
            call.method !== "HEAD"
          ) {
            // Issue 39: the e-mail's unsubscribe link is opened by people (and mail providers): a page;
            // so is the address confirmation link (issue 45).
            const page = /^\/api\/reminders\/(unsubscribe|confirm)\b/.test(call.path);
            // The report's CSV (issue 50 §2) is a download; its errors are JSON like any other.
            const csv = call.path.startsWith("/api/report.csv") && res.status === 200;
            expect(res.headers.get("content-type") ?? "", where).toContain(
              page ? "text/html" : csv ? "text/csv" : "application/json",
            );
          }
          // Nothing private of an owner reaches anyone else.
          for (const owner of ["free", "premium"] as const) {
            if (p === owner) continue;
            expect(body, where).not.toContain(accounts[owner].email);
          }
          // Notes are premium-only: shown to their premium owner and no one else.
          if (p !== "premium") expect(body, where).not.toContain(NOTES_MARKER);
          // Nothing the premium vip keeps private reaches anyone (no persona is the vip).
          expect(body, where).not.toContain(vip.email);
          for (const [field, secret] of Object.entries(VIP)) {
            if (field !== "supplement") expect(body, `${where}: the vip's ${field}`).not.toContain(secret);
          }
          if (p === "other") expect(await ownerState(accounts.free), `${where}: the owner's data changed`).toBe(before);
          await row.after?.(p, res, body);
        });
      }
    }
  },
);
