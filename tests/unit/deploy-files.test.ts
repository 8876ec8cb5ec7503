/**
 * The files in deploy/ agree with the app and with each other (npm run test:deploy runs them
 * for real; this checks what it cannot, in a second):
 * - the systemd unit passes `systemd-analyze verify` and waits longer than the drain plus
 *   the in-flight wait before it kills;
 * - the drain (default and env.example's) is longer than Caddy's health interval;
 * - env.example names every production variable api/lib/config.ts reads, and parses;
 * - Caddy's body cap sits a little above the app's largest upload, and its Content-Length
 *   matcher and max_size say the same number; the Caddyfile validates.
 * systemd-analyze and caddy are Debian packages (.ci/run installs both); without them those
 * two checks are skipped loudly, except in CI, where they fail.
 */
import { describe, expect, test } from "bun:test";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { CONFIG_VARIABLES, DEFAULT_DRAIN_SECONDS, parseConfig } from "../../api/lib/config";
import { FINISH_MS } from "../../server/shutdown";
import { PROFILE_IMAGE_MAX_BYTES } from "../../src/lib/constants";
import { packageScripts, ROOT, run, shippedEnv } from "../support/process";

const deploy = (name: string) => readFileSync(join(ROOT, "deploy", name), "utf8");
const unit = deploy("stacktrack@.service");
const caddyfile = deploy("Caddyfile");

function envFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const eq = line.indexOf("=");
    env[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return env;
}
const envExample = envFile(deploy("env.example"));

/** The value of `key` in the unit's section (the last one, as systemd reads it). */
function unitValue(key: string): string | undefined {
  const found = [...unit.matchAll(new RegExp(`^${key}=(.*)$`, "gm"))].map((m) => m[1]);
  return found.at(-1);
}

function which(command: string): string | null {
  for (const dir of (process.env.PATH ?? "").split(":")) if (existsSync(join(dir, command))) return join(dir, command);
  return null;
}

/** Skip (saying so) without the tool, except in CI, where its absence is a failure. */
function skipWithout(command: string, pkg: string): boolean {
  if (which(command)) return false;
  if (process.env.CI) throw new Error(`deploy-files.test.ts needs ${command} (Debian package ${pkg})`);
  console.warn(`SKIPPED: deploy-files.test.ts: ${command} is missing (apt-get install ${pkg})`);
  return true;
}

const seconds = (value: string | undefined) => {
  const m = /^(\d+(?:\.\d+)?)(ms|s)?$/.exec(value ?? "");
  if (!m) throw new Error(`not a duration: ${value}`);
  return m[2] === "ms" ? Number(m[1]) / 1000 : Number(m[1]);
};
const healthInterval = seconds(/^\s*health_interval\s+(\S+)/m.exec(caddyfile)?.[1]);
const healthTimeout = seconds(/^\s*health_timeout\s+(\S+)/m.exec(caddyfile)?.[1]);

describe("deploy/stacktrack@.service", () => {
  test.skipIf(skipWithout("systemd-analyze", "systemd"))(
    "passes systemd-analyze verify (in a scratch root with its ExecStart and EnvironmentFile present)",
    async () => {
      // verify checks that ExecStart's program exists: a scratch root holds the paths the unit
      // names (an executable stand-in for Bun, an empty settings file) and the system's units.
      const root = mkdtempSync(join(tmpdir(), "stacktrack-unit-"));
      try {
        const exec = (unitValue("ExecStart") ?? "").split(" ")[0] as string;
        const envPath = unitValue("EnvironmentFile") as string;
        const workDir = unitValue("WorkingDirectory") as string;
        mkdirSync(join(root, dirname(exec)), { recursive: true });
        writeFileSync(join(root, exec), "#!/bin/sh\n");
        chmodSync(join(root, exec), 0o755);
        mkdirSync(join(root, workDir), { recursive: true });
        mkdirSync(join(root, dirname(envPath)), { recursive: true });
        writeFileSync(join(root, envPath), "");
        mkdirSync(join(root, "etc/systemd/system"), { recursive: true });
        cpSync(join(ROOT, "deploy/stacktrack@.service"), join(root, "etc/systemd/system/stacktrack@.service"));
        mkdirSync(join(root, "usr/lib/systemd"), { recursive: true });
        cpSync("/lib/systemd/system", join(root, "usr/lib/systemd/system"), { recursive: true, dereference: false });
        symlinkSync("usr/lib", join(root, "lib"));
        const result = await run(
          ["systemd-analyze", "verify", "--man=no", `--root=${root}`, "stacktrack@3001.service"],
          { check: false },
        );
        // Any complaint (an unknown key, a wrong section, a bad value) is printed: none is allowed.
        expect({ code: result.code, output: `${result.stdout}${result.stderr}`.trim() }).toEqual({
          code: 0,
          output: "",
        });
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
    30_000,
  );

  test("runs Bun directly (not npm), with the settings file, restarted on failure, as its own user", () => {
    expect(unitValue("ExecStart")).toMatch(/\/bun server\.ts$/);
    expect(unitValue("ExecStart")).not.toContain("npm");
    expect(unitValue("EnvironmentFile")).toBe("/etc/stacktrack/env");
    expect(unitValue("Restart")).toBe("on-failure");
    expect(unitValue("User")).toBe("stacktrack");
    for (const key of ["NoNewPrivileges", "ProtectHome", "PrivateTmp"])
      expect([key, unitValue(key)]).toEqual([key, "yes"]);
    expect(unitValue("ProtectSystem")).toBe("strict");
    // The app writes nothing with DATABASE_URL: no writable paths at all.
    expect(unitValue("ReadWritePaths")).toBeUndefined();
    // The port and address come from the instance name, not from the settings file.
    expect(unit).toMatch(/^Environment=PORT=%i HOST=127\.0\.0\.1$/m);
    expect(envExample.PORT).toBeUndefined();
    expect(envExample.HOST).toBeUndefined();
  });

  test("gives JavaScriptCore the memory budget `npm start` gives it (BUN_JSC_forceRAMSize)", () => {
    const scripts = packageScripts();
    expect(scripts.start).toEndWith(`&& ${scripts.serve}`);
    const budget = shippedEnv().BUN_JSC_forceRAMSize;
    expect(Number(budget)).toBe(256 * 1024 * 1024);
    expect(unit).toContain(`\nEnvironment=BUN_JSC_forceRAMSize=${budget}\n`);
  });

  test("waits longer than the drain plus the in-flight wait before it kills", () => {
    const stop = seconds(unitValue("TimeoutStopSec"));
    const drain = Math.max(DEFAULT_DRAIN_SECONDS, Number(envExample.SHUTDOWN_DRAIN_SECONDS));
    expect(stop).toBeGreaterThan(drain + FINISH_MS / 1000 + 1);
  });
});

describe("drain and health interval", () => {
  test("the drain (default and env.example's) outlasts Caddy's health interval with room for a check in flight", () => {
    expect(healthInterval).toBeGreaterThan(0);
    // A draining instance answers its check at once: the next check after the signal (at most
    // one interval later) takes it out; the rest of the drain is room for a slow check.
    for (const drain of [DEFAULT_DRAIN_SECONDS, Number(envExample.SHUTDOWN_DRAIN_SECONDS)]) {
      expect(drain).toBeGreaterThanOrEqual(healthInterval + 2);
    }
    expect(healthTimeout).toBeGreaterThan(2); // above the app's own 2 s database ping
    expect(caddyfile).toMatch(/^\s*health_uri \/api\/health$/m);
  });
});

describe("deploy/env.example", () => {
  // Development and test settings, and what the unit sets per instance.
  const notForProduction = ["DATA_DIR", "STRIPE_API_BASE", "HOST", "PORT", "TEST_CLOCK_FILE"];

  test("names every production variable the server reads, and nothing it does not", () => {
    const wanted = CONFIG_VARIABLES.filter((key) => !notForProduction.includes(key)).sort();
    expect(Object.keys(envExample).sort()).toEqual(wanted);
  });

  test("is production behind one proxy, and parses once the secrets are filled in", () => {
    expect(envExample.NODE_ENV).toBe("production");
    expect(envExample.TRUST_PROXY).toBe("true");
    expect(envExample.RATE_LIMIT).toBe("on");
    const config = parseConfig({ ...envExample, BETTER_AUTH_SECRET: "x".repeat(48), PORT: "3001" });
    expect(config.production).toBe(true);
    expect(config.TRUST_PROXY).toBe(1);
    expect(config.origin).toStartWith("https://");
    // Without the secret, production refuses to start (so the empty line cannot be forgotten).
    expect(() => parseConfig(envExample)).toThrow("BETTER_AUTH_SECRET");
  });
});

describe("deploy/Caddyfile", () => {
  const matcher = /@bodyTooLarge header_regexp Content-Length (\S+)/.exec(caddyfile)?.[1] ?? "";
  const declared = new RegExp(matcher);
  /** The cap the Caddyfile's comment and deploy/README.md state. */
  const CAP = 6_000_000;

  test("refuses declared bodies of 6,000,000 bytes and more: a little above the app's largest upload", () => {
    expect(CAP).toBeGreaterThan(PROFILE_IMAGE_MAX_BYTES + 64 * 1024);
    const table: [string, boolean][] = [
      ["0", false],
      [String(PROFILE_IMAGE_MAX_BYTES + 1024), false],
      [String(CAP - 1), false],
      [String(CAP), true],
      [String(6 * 1024 * 1024), true],
      ["9999999", true],
      ["10000000", true],
      ["1000000000000", true],
      [`0${CAP}`, true],
      [`00${CAP - 1}`, false],
      ["abc", false],
      ["", false],
    ];
    for (const [length, refused] of table) expect([length, declared.test(length)]).toEqual([length, refused]);
  });

  test("balances with least_conn, not Caddy 2.6's round_robin (which can find no instance while one is out)", () => {
    expect(caddyfile).toMatch(/^\s*lb_policy least_conn$/m);
  });

  test("does not cut bodies with request_body (Caddy 2.6 would count that against the instance)", () => {
    expect(caddyfile).not.toMatch(/^\s*request_body\b/m);
    expect(caddyfile).not.toMatch(/^\s*max_size\b/m);
  });

  test.skipIf(skipWithout("caddy", "caddy"))(
    "validates (caddy validate), its settings from the environment",
    async () => {
      const home = mkdtempSync(join(tmpdir(), "stacktrack-caddy-"));
      try {
        const result = await run(
          ["caddy", "adapt", "--config", join(ROOT, "deploy/Caddyfile"), "--adapter", "caddyfile"],
          {
            check: false,
            env: {
              PATH: process.env.PATH,
              HOME: home,
              XDG_DATA_HOME: home,
              XDG_CONFIG_HOME: home,
              STACKTRACK_ADDRESS: "stacktrack.example.com",
              STACKTRACK_UPSTREAMS: "127.0.0.1:3001 127.0.0.1:3002",
            },
          },
        );
        expect(result.code).toBe(0);
        const config = JSON.parse(result.stdout) as { apps: unknown };
        const text = JSON.stringify(config);
        // Both instances are upstreams; the site is the address given.
        expect(text).toContain('"dial":"127.0.0.1:3001"');
        expect(text).toContain('"dial":"127.0.0.1:3002"');
        expect(text).toContain('"stacktrack.example.com"');
        // A formatting or deprecation complaint would be on stderr.
        expect(result.stderr).not.toMatch(/not formatted|deprecated/i);
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    },
  );
});
