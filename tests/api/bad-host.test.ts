/**
 * A request without a usable host (HTTP/1.0 without Host, an empty or garbage Host header,
 * an absolute-form target whose authority is not a host) reaches the built server over a
 * raw TCP socket, where no HTTP client can tidy it up. Each must answer 400 JSON
 * `{message}` with the usual security headers, never a 500; and none may be counted as
 * still in flight: SIGTERM afterwards exits promptly (it waits up to 15 s for requests in
 * flight, so a leaked count shows as a slow exit).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ServerProcess, skipWithoutBuild, startServer } from "../support/process";

interface RawAnswer {
  status: number;
  headers: Map<string, string>;
  body: string;
}

/** Sends `text` as is on a fresh TCP connection and reads the whole answer (the server closes it). */
function rawRequest(port: number, text: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    let received = "";
    const decoder = new TextDecoder();
    const parse = (): RawAnswer => {
      const [head = "", ...rest] = received.split("\r\n\r\n");
      const [statusLine = "", ...lines] = head.split("\r\n");
      const headers = new Map<string, string>();
      for (const line of lines) {
        const at = line.indexOf(":");
        if (at > 0) headers.set(line.slice(0, at).trim().toLowerCase(), line.slice(at + 1).trim());
      }
      return { status: Number(statusLine.split(" ")[1]), headers, body: rest.join("\r\n\r\n") };
    };
    Bun.connect({
      hostname: "127.0.0.1",
      port,
      socket: {
        open(socket) {
          socket.write(text);
        },
        data(_socket, chunk) {
          received += decoder.decode(chunk, { stream: true });
          // One answer per connection: done once the declared body is in.
          const answer = parse();
          const length = Number(answer.headers.get("content-length") ?? Number.NaN);
          if (Number.isFinite(length) && new TextEncoder().encode(answer.body).byteLength >= length) {
            _socket.end();
          }
        },
        close() {
          resolve(parse());
        },
        error(_socket, error) {
          reject(error);
        },
      },
    }).catch(reject);
  });
}

/** Requests the spec's clients never send, but anyone with a socket can. */
const NO_USABLE_HOST: [string, string][] = [
  ["HTTP/1.0 without Host", "GET /api/health HTTP/1.0\r\n\r\n"],
  ["HTTP/1.0 without Host, a page", "GET /auth/sign-in HTTP/1.0\r\n\r\n"],
  ["HTTP/1.0 without Host, a POST with a body", "POST /api/profile HTTP/1.0\r\nContent-Length: 2\r\n\r\n{}"],
  ["an empty Host header", "GET /api/health HTTP/1.1\r\nHost: \r\nConnection: close\r\n\r\n"],
  ["a Host with a space and a slash", "GET /api/health HTTP/1.1\r\nHost: a b/c\r\nConnection: close\r\n\r\n"],
  ["a Host with a quote", 'GET /api/health HTTP/1.1\r\nHost: exa"mple\r\nConnection: close\r\n\r\n'],
  ["a Host that is not an IPv6 literal", "GET /api/health HTTP/1.1\r\nHost: [zz]\r\nConnection: close\r\n\r\n"],
  ["a Host with an impossible port", "GET /api/health HTTP/1.1\r\nHost: host:99999999\r\nConnection: close\r\n\r\n"],
  ["a Host with userinfo", "GET /api/health HTTP/1.1\r\nHost: user@evil.com\r\nConnection: close\r\n\r\n"],
  ["an absolute-form target with an empty authority", "GET http:///api/health HTTP/1.0\r\n\r\n"],
  ["an absolute-form target with an encoded space", "GET http://exa%20mple/api/health HTTP/1.0\r\n\r\n"],
  ["an absolute-form target with a bang", "GET http://a_b!/api/health HTTP/1.0\r\n\r\n"],
];

describe.skipIf(skipWithoutBuild("bad-host.test.ts: a request without a usable host"))(
  "a request without a usable host",
  () => {
    const dir = mkdtempSync(join(tmpdir(), "stacktrack-host-"));
    let server: ServerProcess;
    let port: number;

    beforeAll(async () => {
      server = await startServer({ DATA_DIR: join(dir, "data") });
      port = Number(new URL(server.url).port);
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    test.each(NO_USABLE_HOST)("%s: 400 JSON {message} with the security headers", async (_label, request) => {
      const answer = await rawRequest(port, request);
      expect(answer.status).toBe(400);
      expect(answer.headers.get("content-type")).toContain("application/json");
      expect(typeof (JSON.parse(answer.body) as { message?: unknown }).message).toBe("string");
      expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
      expect(answer.headers.get("x-frame-options")).toBe("DENY");
      expect(answer.headers.get("content-security-policy")).toContain("default-src 'none'");
      expect(answer.headers.get("referrer-policy")).toBeTruthy();
    });

    test("a normal request on the same server still answers 200", async () => {
      const answer = await rawRequest(
        port,
        `GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`,
      );
      expect(answer.status).toBe(200);
    });

    test("after all of them, SIGTERM exits 0 promptly: none is still counted in flight", async () => {
      // Once more right before the signal, so a leaked count is fresh.
      for (const [, request] of NO_USABLE_HOST) await rawRequest(port, request);
      const started = performance.now();
      const code = await server.stop();
      const elapsed = performance.now() - started;
      expect(code).toBe(0);
      expect(elapsed).toBeLessThan(5_000);
    }, 30_000);
  },
);
