/**
 * A streamed body (no Content-Length) over the server's limit is answered 413 only after
 * the rest of it has been read and dropped, up to LINGER_BYTES past the limit (server/
 * body-limit.ts): a proxy in front writes the whole body before it reads the answer, and a
 * socket closed under it becomes a 502 and an instance counted as failed (the test:deploy
 * failure this guards). Driven on a raw TCP socket the way a proxy sends it, chunk by chunk,
 * so that a write the server refuses shows as the error it is. Beyond the linger bound the
 * server stops reading: a client cannot make it read without end.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect, type Socket } from "node:net";
import { LINGER_BYTES, MAX_BODY_BYTES } from "../../server/body-limit";
import { type Instance, type SharedDatabase, sharedDatabase, signUpOn, startInstance } from "../support/instances";
import { skipWithoutBuild } from "../support/process";
import { uniqueName } from "../support/users";

const MB = 1024 * 1024;
const CHUNK = 64 * 1024;

interface Outcome {
  /** Body bytes the socket accepted before an error or the end. */
  written: number;
  writeError: string | null;
  status: number | null;
  body: string;
}

/** Resolves once the socket can take more, or is closed. */
function drained(socket: Socket) {
  return new Promise<void>((go) => {
    const settle = () => {
      socket.off("drain", settle);
      socket.off("close", settle);
      go();
    };
    socket.on("drain", settle);
    socket.on("close", settle);
  });
}

/** POSTs `total` bytes chunked to `path`, as a proxy would: every byte, then reads the answer. */
function chunkedPost(base: string, path: string, headers: Record<string, string>, total: number) {
  const { hostname, port } = new URL(base);
  return new Promise<Outcome>((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const outcome: Outcome = { written: 0, writeError: null, status: null, body: "" };
    let received = "";
    const timer = setTimeout(() => socket.destroy(), 15_000);
    const done = () => {
      clearTimeout(timer);
      const end = received.indexOf("\r\n\r\n");
      if (end >= 0) {
        outcome.status = Number(received.match(/^HTTP\/1\.1 (\d{3})/)?.[1]);
        outcome.body = received.slice(end + 4);
      }
      resolve(outcome);
    };
    socket.on("data", (chunk) => {
      received += chunk.toString("latin1");
    });
    socket.on("error", (error: NodeJS.ErrnoException) => {
      outcome.writeError ??= error.code ?? error.message;
    });
    socket.on("close", done);
    socket.on("connect", async () => {
      const head = [`POST ${path} HTTP/1.1`, `Host: ${hostname}:${port}`, "Transfer-Encoding: chunked"];
      for (const [key, value] of Object.entries(headers)) head.push(`${key}: ${value}`);
      socket.write(`${head.join("\r\n")}\r\n\r\n`);
      const payload = Buffer.alloc(CHUNK, 0x61);
      while (outcome.written < total && !socket.destroyed && outcome.writeError === null) {
        const framed = Buffer.concat([Buffer.from(`${CHUNK.toString(16)}\r\n`), payload, Buffer.from("\r\n")]);
        const flushed = socket.write(framed);
        outcome.written += CHUNK;
        if (!flushed) await drained(socket);
      }
      if (!socket.destroyed) socket.write("0\r\n\r\n");
    });
  });
}

describe.skipIf(skipWithoutBuild("body-linger.test.ts: server.ts's body limit"))(
  "a streamed body over the limit: the rest is read before the 413 (server.ts)",
  () => {
    let db: SharedDatabase;
    let server: Instance;
    let cookie = "";
    beforeAll(async () => {
      db = await sharedDatabase();
      server = await startInstance(db.env);
      cookie = (await signUpOn(server.url, uniqueName("linger"), "L")).cookie;
    }, 120_000);
    afterAll(async () => {
      await server?.stop();
      await db?.drop();
    });

    // Each just over the limit, and up to the linger bound: the server reads all of it.
    for (const [path, type, total] of [
      ["/api/upload/profile-image", "multipart/form-data; boundary=x", MAX_BODY_BYTES + MB],
      ["/api/upload/profile-image", "multipart/form-data; boundary=x", MAX_BODY_BYTES + LINGER_BYTES - MB],
      ["/api/supplements", "application/json", MAX_BODY_BYTES + CHUNK],
      ["/api/auth/sign-in/email", "application/json", MAX_BODY_BYTES + 4 * MB],
    ] as const) {
      test(`${total / MB} MB chunked to ${path}: every byte taken, then 413 JSON`, async () => {
        const out = await chunkedPost(
          server.url,
          path,
          { Origin: server.url, Cookie: cookie, "Content-Type": type },
          total,
        );
        expect(out.writeError, `the server closed under the body after ${out.written} bytes`).toBeNull();
        expect(out.written).toBe(total);
        expect(out.status).toBe(413);
        expect(JSON.parse(out.body)).toEqual({ message: "Request body is too large" });
        expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
      }, 30_000);
    }

    test("past the linger bound the server stops reading: the client cannot be read without end", async () => {
      const total = MAX_BODY_BYTES + LINGER_BYTES + 32 * MB;
      const out = await chunkedPost(
        server.url,
        "/api/upload/profile-image",
        { Origin: server.url, Cookie: cookie, "Content-Type": "multipart/form-data; boundary=x" },
        total,
      );
      expect(out.written).toBeLessThan(total);
      expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
    }, 30_000);
  },
);
