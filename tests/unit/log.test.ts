/**
 * api/lib/log.ts: request lines are made by hand and kept in memory (issue 17). Each must be
 * byte for byte the line the generic logger writes for the same fields, and none may be lost:
 * a process that calls process.exit() at once, or simply ends, has written every line, in
 * order, and a line of any other kind is written after the request lines logged before it.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { requestLine } from "../../api/lib/log";
import { ROOT } from "../support/process";

describe("requestLine", () => {
  const variants = [
    { method: "GET", path: "/", status: 200, ms: 0.1, ip: "127.0.0.1" },
    { method: "HEAD", path: "/some_user", status: 304, ms: 0, ip: "2001:db8::1" },
    { method: "POST", path: "/api/supplements", status: 201, ms: 12.3, ip: undefined },
    { method: "GET", path: '/a"quote\\back\u0001ctl', status: 404, ms: 1000, ip: "10.0.0.1" },
    { method: "GET", path: "/ünïcödé/名前/\u2028", status: 500, ms: 123456.7, ip: "::ffff:1.2.3.4" },
    { method: "GET", path: "(no usable host)", status: 400, ms: 1.5, ip: undefined },
    // Each kind of character JSON.stringify escapes, or leaves alone, once with nothing else.
    { method: "GET", path: "/emoji/💪/\ud83d", status: 200, ms: 2, ip: "1.2.3.4" },
    { method: "GET", path: "/lone\udc00low", status: 200, ms: 2, ip: "1.2.3.4" },
    { method: "GET", path: "/tab\there/del\u007f/nbsp\u00a0", status: 200, ms: 2, ip: "1.2.3.4" },
    { method: "GET", path: '"', status: 200, ms: 2, ip: "\\" },
    { method: 'GE"T', path: "\u0000", status: 200, ms: 2, ip: "\u001f" },
    { method: "GET", path: "", status: 200, ms: 2, ip: "" },
  ];
  for (const fields of variants) {
    test(`${fields.method} ${JSON.stringify(fields.path)} ${fields.status}`, () => {
      const line = requestLine(fields);
      const time = (JSON.parse(line) as { time: string }).time;
      expect(time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(line).toBe(JSON.stringify({ time, level: "info", msg: "request", ...fields }));
    });
  }
});

describe("no request line is lost", () => {
  /** Runs a script that logs through api/lib/log.ts; its stdout. */
  async function run(body: string): Promise<{ code: number; lines: string[] }> {
    const script = `import { log } from ${JSON.stringify(join(ROOT, "api/lib/log.ts"))};\n${body}`;
    const proc = Bun.spawn([process.execPath, "-e", script], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", LOG_LEVEL: "info" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    return { code, lines: out.split("\n").filter(Boolean) };
  }

  const requests = (n: number) =>
    `for (let i = 0; i < ${n}; i++) log.request({ method: "GET", path: "/p" + i, status: 200, ms: 1, ip: "127.0.0.1" });`;
  const paths = (lines: string[]) => lines.map((l) => (JSON.parse(l) as { path?: string; msg: string }).path ?? l);
  const expected = (n: number) => Array.from({ length: n }, (_, i) => `/p${i}`);

  const endings = [
    { name: "process.exit(3) right after", code: 3, tail: "process.exit(3);" },
    { name: "the script simply ends", code: 0, tail: "" },
    {
      name: "an error ends it (process.exit(1) from a handler)",
      code: 1,
      tail: "setTimeout(() => process.exit(1), 0);",
    },
  ];
  for (const ending of endings) {
    test(`${ending.name}: all 5000 lines, in order`, async () => {
      const { code, lines } = await run(`${requests(5000)}\n${ending.tail}`);
      expect(code).toBe(ending.code);
      expect(paths(lines)).toEqual(expected(5000));
    });
  }

  test("lines of any size and script: many bytes per character, and one longer than the buffer, all in order", async () => {
    const body = `const paths = []; for (let i = 0; i < 3000; i++) paths.push("/名前/ü/💪/" + i);
      paths.splice(1500, 0, "/" + "ж".repeat(100000));
      for (const path of paths) log.request({ method: "GET", path, status: 200, ms: 1, ip: "127.0.0.1" });`;
    const { code, lines } = await run(body);
    expect(code).toBe(0);
    const want = Array.from({ length: 3000 }, (_, i) => `/名前/ü/💪/${i}`);
    want.splice(1500, 0, `/${"ж".repeat(100000)}`);
    expect(paths(lines)).toEqual(want);
  });

  test("another line is written after the request lines logged before it", async () => {
    const { lines } = await run(`${requests(3)}\nlog.info("stopped", { reason: "test" });\n${requests(2)}`);
    expect(lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual([
      "request",
      "request",
      "request",
      "stopped",
      "request",
      "request",
    ]);
  });
});

describe("one redaction rule for secrets in paths and queries (issue 45)", () => {
  const RESET = "Ab3dE5gH7jK9mN1pQ3sT5vW7"; // better-auth's reset token: 24 of [A-Za-z0-9]
  const table: [string, string][] = [
    // [logged, written]
    [`/api/auth/reset-password/${RESET}`, "/api/auth/reset-password/[redacted]"],
    [
      `/api/auth/reset-password/${RESET}?callbackURL=%2Fauth%2Freset-password`,
      "/api/auth/reset-password/[redacted]?callbackURL=[redacted]",
    ],
    [`/auth/reset-password?token=${RESET}`, "/auth/reset-password?token=[redacted]"],
    ["/api/account/email/confirm?token=abc", "/api/account/email/confirm?token=[redacted]"],
    ["/api/reminders/confirm?token=s3cr3t&x", "/api/reminders/confirm?token=[redacted]&x"],
    [
      `/api/reminders/unsubscribe?u=user-1&t=${"Zz9_-".repeat(8)}abc`,
      "/api/reminders/unsubscribe?u=[redacted]&t=[redacted]",
    ],
    // A feed token (issue 50: 32 random bytes, 43 base64url characters).
    [`/api/calendar/${"k".repeat(42)}9.ics`, "/api/calendar/[redacted].ics"],
    [
      "/api/calendar/2F6sQw0rT8yU4iO2pA6sD2F6sQw0rT8yU4iO2pA6sD9x.ics?download=1",
      "/api/calendar/[redacted].ics?download=[redacted]",
    ],
    ["/api/push/subscriptions/3f2c1b8e-9d4a-4c6e-8f0b-1a2b3c4d5e6f", "/api/push/subscriptions/[redacted]"],
    [
      `https://stacktrack.app/api/auth/reset-password/${RESET}`,
      "https://stacktrack.app/api/auth/reset-password/[redacted]",
    ],
    [`/api/auth/reset-password/${RESET}#frag`, "/api/auth/reset-password/[redacted]"],
    [`/api/x/${encodeURIComponent("a+b/c=d")}${"Q".repeat(16)}`, "/api/x/[redacted]"],
    // Kept: routes' own words, short ids, built assets.
    ["/api/auth/request-password-reset", "/api/auth/request-password-reset"],
    ["/api/supplements/12345/refills", "/api/supplements/12345/refills"],
    ["/_astro/client.BkQx12ab.js", "/_astro/client.BkQx12ab.js"],
    ["/api/auth/callback/github", "/api/auth/callback/github"],
    // Shorter than any token we issue (24+ characters): a name, a probe, a 23-character word.
    ["/Maya_Runs_2026", "/Maya_Runs_2026"],
    ["/api/log-probe-7-1082", "/api/log-probe-7-1082"],
    [`/api/x/${"Q".repeat(22)}1`, `/api/x/${"Q".repeat(22)}1`],
    ["/", "/"],
  ];
  for (const [logged, written] of table) {
    test(`${logged} → ${written}`, async () => {
      const { redactUrl } = await import("../../api/lib/log");
      expect(redactUrl(logged)).toBe(written);
      const line = JSON.parse(requestLine({ method: "GET", path: logged, status: 302, ms: 1, ip: "1.2.3.4" }));
      expect(line.path).toBe(written);
    });
  }

  test("every other log line's URL and path fields follow the same rule", async () => {
    const script = `import { log } from ${JSON.stringify(join(ROOT, "api/lib/log.ts"))};
      log.warn("statement timeout", { path: "/api/auth/reset-password/${RESET}", url: "https://x.example/a?token=${RESET}", note: "kept ${RESET}" });`;
    const proc = Bun.spawn([process.execPath, "-e", script], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", LOG_LEVEL: "info" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [err] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
    const line = JSON.parse(err.trim());
    expect(line.path).toBe("/api/auth/reset-password/[redacted]");
    expect(line.url).toBe("https://x.example/a?token=[redacted]");
    expect(err).toContain("kept "); // not a URL: a message's words are the caller's business
  });
});
