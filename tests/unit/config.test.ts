/** parseConfig (api/lib/config.ts): defaults, and a refusal that names the variable at fault. */

import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { ConfigError, parseConfig } from "../../api/lib/config";
import { CARD_STORE_BYTES } from "../../api/sharing/card";
import { ROOT } from "../support/process";

/** The problems a source is refused with (fails the test when it is accepted). */
function problems(source: Record<string, string>): string[] {
  try {
    parseConfig(source);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error(`parseConfig accepted ${JSON.stringify(source)}`);
}

const STRIPE = {
  STRIPE_SECRET_KEY: "sk_test_123",
  PUBLIC_STRIPE_PUBLISHABLE_KEY: "pk_test_123",
  STRIPE_WEBHOOK_SECRET: "whsec_123",
  STRIPE_PRICE_ID: "price_123",
};

describe("parseConfig", () => {
  test("an empty environment gives the development defaults", () => {
    const config = parseConfig({});
    expect(config.NODE_ENV).toBe("development");
    expect(config.PORT).toBe(4321);
    expect(config.HOST).toBe("0.0.0.0");
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.DATA_DIR).toBe("./data");
    expect(config.LOG_LEVEL).toBe("info");
    expect(config.RATE_LIMIT).toBe("on");
    expect(config.TRUST_PROXY).toBe(0);
    expect(config.origin).toBe("http://localhost:4321");
    expect(config.production).toBe(false);
    expect(config.billingEnabled).toBe(false);
    expect(config.authSecret.length).toBeGreaterThanOrEqual(32);
  });

  test("PORT and PUBLIC_ORIGIN shape the origin; a trailing slash is dropped", () => {
    expect(parseConfig({ PORT: "8080" }).origin).toBe("http://localhost:8080");
    expect(parseConfig({ PUBLIC_ORIGIN: "https://stacktrack.example/" }).origin).toBe("https://stacktrack.example");
  });

  test("empty strings count as unset", () => {
    const config = parseConfig({ DATABASE_URL: "", STRIPE_SECRET_KEY: "  " });
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.billingEnabled).toBe(false);
  });

  test("PORT that is not a number is refused, naming PORT", () => {
    const list = problems({ PORT: "abc" });
    expect(list).toHaveLength(1);
    expect(list[0]).toStartWith("PORT ");
    expect(problems({ PORT: "70000" }).join("\n")).toContain("PORT");
  });

  test("DATABASE_URL that is not postgres:// is refused, naming DATABASE_URL", () => {
    const list = problems({ DATABASE_URL: "mysql://user@localhost/db" });
    expect(list).toHaveLength(1);
    expect(list[0]).toStartWith("DATABASE_URL ");
    expect(list[0]).toContain("postgres://");
    expect(parseConfig({ DATABASE_URL: "postgres://u@h/db" }).DATABASE_URL).toBe("postgres://u@h/db");
    expect(parseConfig({ DATABASE_URL: "postgresql://u@h/db" }).DATABASE_URL).toBe("postgresql://u@h/db");
  });

  test("production without BETTER_AUTH_SECRET is refused, naming it", () => {
    const list = problems({ NODE_ENV: "production" });
    expect(list).toHaveLength(1);
    expect(list[0]).toStartWith("BETTER_AUTH_SECRET ");
    const config = parseConfig({ NODE_ENV: "production", BETTER_AUTH_SECRET: "x".repeat(32) });
    expect(config.production).toBe(true);
    expect(config.authSecret).toBe("x".repeat(32));
  });

  test("half-set Stripe keys are refused, naming exactly the missing ones", () => {
    const list = problems({ STRIPE_SECRET_KEY: STRIPE.STRIPE_SECRET_KEY, STRIPE_PRICE_ID: STRIPE.STRIPE_PRICE_ID });
    const named = list.map((p) => p.split(" ")[0]).sort();
    expect(named).toEqual(["PUBLIC_STRIPE_PUBLISHABLE_KEY", "STRIPE_WEBHOOK_SECRET"]);
    expect(parseConfig(STRIPE).billingEnabled).toBe(true);
  });

  test("TRUST_PROXY is the number of proxy hops: true = 1, false = 0, an integer 0 to 10", () => {
    const accepted: [string, number][] = [
      ["true", 1],
      ["false", 0],
      ["", 0],
      ["0", 0],
      ["1", 1],
      ["2", 2],
      [" 3 ", 3],
      ["10", 10],
      ["07", 7],
    ];
    for (const [value, hops] of accepted)
      expect([value, parseConfig({ TRUST_PROXY: value }).TRUST_PROXY]).toEqual([value, hops]);
    for (const value of ["11", "-1", "1.5", "1e1", "0x2", "yes", "TRUE", "on", "2 proxies", "100"]) {
      const list = problems({ TRUST_PROXY: value });
      expect(list).toEqual(["TRUST_PROXY must be true, false or the number of proxies in front of the app (0 to 10)"]);
    }
  });

  test("SHUTDOWN_DRAIN_SECONDS: 5 by default (empty too), seconds from 0 to 300, refused otherwise", () => {
    expect(parseConfig({}).SHUTDOWN_DRAIN_SECONDS).toBe(5);
    const accepted: [string, number][] = [
      ["", 5],
      ["0", 0],
      ["1.5", 1.5],
      [" 3 ", 3],
      ["300", 300],
    ];
    for (const [value, seconds] of accepted)
      expect([value, parseConfig({ SHUTDOWN_DRAIN_SECONDS: value }).SHUTDOWN_DRAIN_SECONDS]).toEqual([value, seconds]);
    for (const value of ["-1", "301", "1e1", "0x2", "five", "5s", ".5", "1.", "NaN", "Infinity"]) {
      expect(problems({ SHUTDOWN_DRAIN_SECONDS: value })).toEqual([
        "SHUTDOWN_DRAIN_SECONDS must be a number of seconds from 0 to 300",
      ]);
    }
  });

  test("IMAGE_CACHE_MB: 32 by default, 0 (keep none) to 65536 megabytes; anything else names the variable", () => {
    expect(parseConfig({}).IMAGE_CACHE_MB).toBe(32);
    for (const [value, mb] of [
      ["0", 0],
      ["8.5", 8.5],
      ["65536", 65536],
    ] as const)
      expect([value, parseConfig({ IMAGE_CACHE_MB: value }).IMAGE_CACHE_MB]).toEqual([value, mb]);
    for (const value of ["-1", "abc", "65537", "32MB"]) {
      const list = problems({ IMAGE_CACHE_MB: value });
      expect([value, list.length, list.join("\n")]).toEqual([value, 1, expect.stringContaining("IMAGE_CACHE_MB")]);
    }
  });

  test("every cache together: 96 MB by default (the cards' PNGs: 8 MB)", () => {
    const c = parseConfig({});
    expect(c.PROFILE_CACHE_MB + c.IMAGE_CACHE_MB + c.USER_CACHE_MB + CARD_STORE_BYTES / 2 ** 20).toBe(96);
  });

  test("USER_CACHE_MB: 24 by default, 0 to 65536 megabytes; anything else names the variable", () => {
    expect(parseConfig({}).USER_CACHE_MB).toBe(24);
    for (const [value, mb] of [
      ["0", 0],
      ["8.5", 8.5],
      ["65536", 65536],
    ] as const)
      expect([value, parseConfig({ USER_CACHE_MB: value }).USER_CACHE_MB]).toEqual([value, mb]);
    for (const value of ["-1", "abc", "65537", "32MB"]) {
      const list = problems({ USER_CACHE_MB: value });
      expect([value, list.length, list.join("\n")]).toEqual([value, 1, expect.stringContaining("USER_CACHE_MB")]);
    }
  });

  test.each([
    [{ VAPID_PUBLIC_KEY: "B".repeat(87) }, "VAPID_PRIVATE_KEY must be set together with VAPID_PUBLIC_KEY"],
    [{ VAPID_PUBLIC_KEY: "B".repeat(86), VAPID_PRIVATE_KEY: "a".repeat(43) }, "VAPID_PUBLIC_KEY must be a base64url"],
    [{ VAPID_PUBLIC_KEY: "B".repeat(87), VAPID_PRIVATE_KEY: "a=".repeat(22) }, "VAPID_PRIVATE_KEY must be a base64url"],
    [{ VAPID_SUBJECT: "admin@example.com" }, "VAPID_SUBJECT must be a mailto: or https: URL"],
    [{ REMINDER_TICK_MS: "-1" }, "REMINDER_TICK_MS"],
    [
      { NODE_ENV: "production", BETTER_AUTH_SECRET: "x".repeat(40), TEST_CLOCK_FILE: "/tmp/clock" },
      "TEST_CLOCK_FILE is for tests only",
    ],
  ])("reminders (issue 39): %j is refused: %s", (source, message) => {
    expect(problems(source).join("\n")).toContain(message);
  });

  test("reminders: a VAPID pair and a subject are taken; the tick is 5 s by default", () => {
    const config = parseConfig({
      VAPID_PUBLIC_KEY: "B".repeat(87),
      VAPID_PRIVATE_KEY: "a".repeat(43),
      VAPID_SUBJECT: "mailto:admin@example.com",
    });
    expect(config.VAPID_SUBJECT).toBe("mailto:admin@example.com");
    expect(config.REMINDER_TICK_MS).toBe(5000);
  });

  test("the error message lists every problem", () => {
    const error = (() => {
      try {
        parseConfig({ PORT: "abc", DATABASE_URL: "mysql://x" });
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error?.message).toContain("PORT");
    expect(error?.message).toContain("DATABASE_URL");
  });
});

describe("bun server.ts with a bad configuration", () => {
  test("PORT=abc: exits non-zero before opening the database, with a message naming PORT", async () => {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
    const proc = Bun.spawn([process.execPath, "server.ts"], {
      cwd: ROOT,
      env: { ...env, PORT: "abc", DATA_DIR: "/nonexistent/never-created" },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const [code, stdout, stderr] = await Promise.all([
      proc.exited,
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
    ]);
    expect(code).not.toBe(0);
    // Refused before anything was opened (no timing: a loaded machine once took 7 s to start bun).
    expect(existsSync("/nonexistent/never-created")).toBe(false);
    expect(stderr).toContain("PORT");
    expect(stderr).toContain("cannot start");
    expect(stdout).not.toContain("listening");
  });
});
