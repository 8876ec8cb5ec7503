/**
 * Issue 51's rows: on a phone (360 × 740, Lighthouse's mobile throttling: 4× CPU slowdown and
 * slow 4G, 562.5 ms a request, 1.47 Mbit/s down, 675 kbit/s up), a signed-in user's /dashboard
 * from a cold browser: when the first dose checkbox of Today is on screen, and when it can be
 * ticked (its island hydrated). This checkout against BEFORE_DIR, a built checkout of an older
 * commit, measured in the same run, alternately, on one Postgres cluster; medians of RUNS.
 * Each build is reached as in production: through Caddy with deploy/Caddyfile (HTTPS, HTTP/2,
 * compression); EDGE=none reaches the app directly (HTTP/1.1, nothing compressed: six
 * connections at a time and the page's HTML as it is). Method: docs/benchmarks.md "Today on a phone".
 *
 *   git worktree add /tmp/before 08b69c3 && (cd /tmp/before && bun install && bun --bun astro build)
 *   bun --bun astro build && BEFORE_DIR=/tmp/before bun bench/today-mobile.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { chromium } from "@playwright/test";
import { startPgCluster } from "../tests/support/pg-cluster";
import { freePort, serverEnv } from "../tests/support/process";
import { median } from "./lib";

const RUNS = Number(process.env.RUNS ?? 7);
/** `caddy` (default): through deploy/Caddyfile, as production; `none`: the app's own port. */
const EDGE = process.env.EDGE ?? "caddy";
const BEFORE_DIR = process.env.BEFORE_DIR;
const SECRET = "bench-secret-0123456789-0123456789-0123";
/** Lighthouse's mobile profile, applied in DevTools (its "devtools" throttling constants). */
const SLOW_4G = { latency: 150 * 3.75, download: (1.6 * 1024 * 0.9 * 1024) / 8, upload: (750 * 0.9 * 1024) / 8 };
const CPU_SLOWDOWN = 4;

interface Build {
  label: string;
  dir: string;
}

/** Answers once `url` says 200, or throws after about a minute. */
async function healthy(url: string, what: string, exited: () => boolean) {
  for (let tries = 0; ; tries++) {
    const ok = await fetch(`${url}/api/health`, { tls: { rejectUnauthorized: false } } as RequestInit).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    if (tries > 600 || exited()) throw new Error(`${what} did not become healthy`);
    await Bun.sleep(100);
  }
}

/**
 * Starts `bun server.ts` of `dir` on its own database, and with EDGE=caddy a Caddy of its own
 * in front (deploy/Caddyfile, its own ports and folders); answers the URL a browser opens and
 * a stop function.
 */
async function start(dir: string, databaseUrl: string) {
  const port = freePort();
  const viaCaddy = EDGE === "caddy";
  const url = viaCaddy ? `https://localhost:${freePort()}` : `http://127.0.0.1:${port}`;
  const proc = Bun.spawn([process.execPath, "server.ts"], {
    cwd: dir,
    env: serverEnv({
      DATABASE_URL: databaseUrl,
      BETTER_AUTH_SECRET: SECRET,
      PORT: String(port),
      PUBLIC_ORIGIN: url,
      ...(viaCaddy ? { TRUST_PROXY: "true" } : {}),
    }),
    stdin: "ignore",
    stdout: "ignore",
    stderr: "inherit",
  });
  await healthy(`http://127.0.0.1:${port}`, `${dir}: server.ts`, () => proc.exitCode !== null);
  const stops = [
    async () => {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  ];
  if (viaCaddy) {
    const home = mkdtempSync(join(tmpdir(), "bench-caddy-"));
    const caddy = Bun.spawn(
      ["caddy", "run", "--config", join(import.meta.dir, "../deploy/Caddyfile"), "--adapter", "caddyfile"],
      {
        env: {
          PATH: process.env.PATH ?? "/usr/bin:/bin",
          HOME: home,
          XDG_DATA_HOME: join(home, "data"),
          XDG_CONFIG_HOME: join(home, "config"),
          STACKTRACK_ADDRESS: url,
          STACKTRACK_UPSTREAMS: `127.0.0.1:${port}`,
          CADDY_ADMIN: `127.0.0.1:${freePort()}`,
          CADDY_HTTP_PORT: String(freePort()),
        },
        stdin: "ignore",
        stdout: "ignore",
        stderr: "ignore",
      },
    );
    await healthy(url, "Caddy", () => caddy.exitCode !== null);
    stops.unshift(async () => {
      caddy.kill("SIGTERM");
      await caddy.exited;
      rmSync(home, { recursive: true, force: true });
    });
  }
  return {
    url,
    stop: async () => {
      for (const stop of stops) await stop();
    },
  };
}

/** A user with a username and five supplements due today; answers the session cookie. */
async function seedUser(origin: string): Promise<string> {
  const headers = { "Content-Type": "application/json", Origin: origin };
  const tls = { rejectUnauthorized: false }; // Caddy's local CA
  const signUp = await fetch(`${origin}/api/auth/sign-up/email`, {
    tls,
    method: "POST",
    headers,
    body: JSON.stringify({ email: "phone@bench.example.com", password: "bench correct horse battery", name: "Phone" }),
  });
  if (signUp.status !== 200) throw new Error(`sign-up: ${signUp.status} ${await signUp.text()}`);
  const cookie = signUp.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const send = async (method: string, path: string, body: unknown) => {
    const res = await fetch(`${origin}${path}`, {
      tls,
      method,
      headers: { ...headers, Cookie: cookie },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  };
  await send("PUT", "/api/profile", { username: "phone_bench", timeZone: "UTC" });
  for (const name of ["Vitamin D3", "Magnesium", "Omega-3", "Creatine", "Zinc"]) {
    await send("POST", "/api/supplements", {
      name,
      quantityType: "Capsule(s)",
      frequency: "Daily",
      doseAmount: 1,
      schedule: { times: ["morning"], days: [1, 2, 3, 4, 5, 6, 7] },
    });
  }
  return cookie;
}

/** Watches, from the first script on, for Today's first dose checkbox: on screen, then hydrated. */
const WATCH = `(() => {
  const marks = (window.__todayMarks = {});
  const find = () => document.querySelector('[data-testid="today-card"] [role="checkbox"], [data-testid="today-card"] input[type="checkbox"]');
  const tick = () => {
    const box = find();
    if (box && marks.visible === undefined) {
      const r = box.getBoundingClientRect();
      if (r.width > 0 && r.height > 0 && r.top < innerHeight) marks.visible = performance.now();
    }
    if (box && marks.visible !== undefined && marks.tickable === undefined) {
      const island = box.closest("astro-island");
      if (island && !island.hasAttribute("ssr")) marks.tickable = performance.now();
    }
    if (marks.tickable === undefined) requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})();`;

async function measure(origin: string, cookie: string): Promise<{ visible: number; tickable: number }> {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    // Caddy's local CA is not trusted by this browser.
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      "--ignore-certificate-errors",
    ],
  });
  try {
    const context = await browser.newContext({
      viewport: { width: 360, height: 740 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
      serviceWorkers: "block",
    });
    const url = new URL(origin);
    await context.addCookies(
      cookie.split("; ").map((pair) => {
        const [name, ...value] = pair.split("=");
        return {
          name: name as string,
          value: value.join("="),
          domain: url.hostname,
          path: "/",
          secure: url.protocol === "https:",
        };
      }),
    );
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.emulateNetworkConditions", {
      offline: false,
      latency: SLOW_4G.latency,
      downloadThroughput: SLOW_4G.download,
      uploadThroughput: SLOW_4G.upload,
    });
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: CPU_SLOWDOWN });
    await page.addInitScript(WATCH);
    await page.goto(`${origin}/dashboard`, { waitUntil: "commit" });
    const marks = await page.waitForFunction(
      () => {
        const m = (window as unknown as { __todayMarks?: { visible?: number; tickable?: number } }).__todayMarks;
        return m?.tickable !== undefined ? m : null;
      },
      undefined,
      { timeout: 60_000, polling: 100 },
    );
    return (await marks.jsonValue()) as { visible: number; tickable: number };
  } finally {
    await browser.close();
  }
}

if (!BEFORE_DIR) {
  console.error("BEFORE_DIR: a built checkout of the commit to compare with (see the header).");
  process.exit(2);
}
const builds: Build[] = [
  { label: `before (${BEFORE_DIR})`, dir: resolve(BEFORE_DIR) },
  { label: "after (this checkout)", dir: resolve(join(import.meta.dir, "..")) },
];
const cluster = await startPgCluster({ durability: "none" });
const apps = await Promise.all(
  builds.map(async (build) => {
    const app = await start(build.dir, await cluster.createDatabase());
    return { build, app, cookie: await seedUser(app.url) };
  }),
);
try {
  const results = new Map<string, { visible: number[]; tickable: number[] }>();
  for (const { build } of apps) results.set(build.label, { visible: [], tickable: [] });
  // A warm-up each (the servers' first renders), then RUNS alternating rounds.
  for (const { app, cookie } of apps) await measure(app.url, cookie);
  for (let run = 0; run < RUNS; run++) {
    for (const { build, app, cookie } of run % 2 === 0 ? apps : [...apps].reverse()) {
      const m = await measure(app.url, cookie);
      const r = results.get(build.label) as { visible: number[]; tickable: number[] };
      r.visible.push(m.visible);
      r.tickable.push(m.tickable);
    }
  }
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  console.log(`Today on a phone: 360 × 740, 4× CPU, slow 4G; median of ${RUNS} cold loads each`);
  console.log("| build | first checkbox visible (target ≤ 1.2 s) | tickable (target ≤ 2.0 s) |");
  console.log("|---|---:|---:|");
  for (const [label, r] of results) {
    console.log(`| ${label} | ${s(median(r.visible))} | ${s(median(r.tickable))} |`);
  }
} finally {
  await Promise.all(apps.map(({ app }) => app.stop()));
  await cluster.destroy();
}
