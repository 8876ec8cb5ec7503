/**
 * A body declared too large is refused from its Content-Length, before it is read (issue
 * 20). Checked on a raw TCP socket: the request's headers and a few KB of its body go
 * out, the rest never does, and the 413 must arrive anyway. A server that read the body
 * first (the later size checks would answer the same 413, after the whole body) never
 * answers here. Both refusals are covered: the upload route's own (api/images/routes.ts, 5 MB
 * plus the multipart envelope) and the whole server's (server.ts, MAX_BODY_BYTES = 8 MB),
 * each on a signed-in request with the site's Origin that would otherwise read its body.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { type Instance, type SharedDatabase, sharedDatabase, startInstance } from "../support/instances";
import { skipWithoutBuild } from "../support/process";
import { buildRequest, startApi, type TestApi } from "../support/server";
import { createUser } from "../support/users";

const MB = 1024 * 1024;
const SENT = 4 * 1024;
const WAIT_MS = 5000;

interface Answer {
  status: number;
  head: string;
  body: string;
}

/**
 * Sends `headers` announcing `declared` bytes, then SENT bytes of body, and waits (no
 * more bytes sent) for the answer: null when none came within WAIT_MS.
 */
function partialRequest(url: string, requestLine: string, headers: Record<string, string>, declared: number) {
  const { hostname, port } = new URL(url);
  return new Promise<Answer | null>((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    let received = "";
    const finish = (answer: Answer | null) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => finish(null), WAIT_MS);
    socket.on("error", (error) => {
      clearTimeout(timer);
      // The server may close after answering; what it answered counts.
      if (received) finish(parse(received));
      else reject(error);
    });
    socket.on("data", (chunk) => {
      received += chunk.toString("latin1");
      const answer = parse(received);
      if (answer) finish(answer);
    });
    socket.on("end", () => finish(parse(received)));
    socket.on("connect", () => {
      const lines = [requestLine, `Host: ${hostname}:${port}`, `Content-Length: ${declared}`];
      for (const [key, value] of Object.entries(headers)) lines.push(`${key}: ${value}`);
      socket.write(`${lines.join("\r\n")}\r\n\r\n`);
      socket.write(Buffer.alloc(SENT, "x"));
    });
  });
}

/** The answer once its head and its whole (Content-Length) body are in; null before. */
function parse(text: string): Answer | null {
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) return null;
  const head = text.slice(0, end);
  const length = Number(head.match(/^content-length:\s*(\d+)/im)?.[1] ?? "NaN");
  const body = text.slice(end + 4);
  if (Number.isFinite(length) && Buffer.byteLength(body, "latin1") < length) return null;
  return { status: Number(head.match(/^HTTP\/1\.1 (\d{3})/)?.[1]), head, body };
}

describe("the upload route refuses a declared 6 MB body before reading it (api/images/routes.ts)", () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(async () => {
    await api?.close();
  });

  test("413 JSON while only 4 KB of the 6 MB were sent", async () => {
    const user = await createUser(api);
    const answer = await partialRequest(
      api.url,
      "POST /api/upload/profile-image HTTP/1.1",
      { Origin: api.origin, Cookie: user.cookie, "Content-Type": "multipart/form-data; boundary=xyz" },
      6 * MB,
    );
    expect(answer, "no answer while the rest of the body was held back").not.toBeNull();
    expect(answer?.status).toBe(413);
    expect(JSON.parse(answer?.body ?? "")).toMatchObject({ errors: { profileImage: [expect.any(String)] } });
  });

  test("control: a declared size within the limit is not refused early (the route waits for the body)", async () => {
    const user = await createUser(api);
    const answer = await partialRequest(
      api.url,
      "POST /api/upload/profile-image HTTP/1.1",
      { Origin: api.origin, Cookie: user.cookie, "Content-Type": "multipart/form-data; boundary=xyz" },
      4 * MB,
    );
    expect(answer).toBeNull();
  });
});

describe.skipIf(skipWithoutBuild("early-413.test.ts: server.ts's MAX_BODY_BYTES"))(
  "the server refuses any declared body over 8 MB before reading it (server.ts)",
  () => {
    let db: SharedDatabase;
    let server: Instance;
    beforeAll(async () => {
      db = await sharedDatabase();
      server = await startInstance({ ...db.env }, { timeoutMs: 90_000 });
    }, 120_000);
    afterAll(async () => {
      await server?.stop();
      await db?.drop();
    });

    test("413 JSON for a signed-in JSON write declaring 9 MB while only 4 KB were sent", async () => {
      const site = { fetch: (path: string, init?: object) => fetch(buildRequest(server.url, server.url, path, init)) };
      const user = await createUser(site as TestApi);
      const answer = await partialRequest(
        server.url,
        "POST /api/supplements HTTP/1.1",
        { Origin: server.url, Cookie: user.cookie, "Content-Type": "application/json" },
        9 * MB,
      );
      expect(answer, "no answer while the rest of the body was held back").not.toBeNull();
      expect(answer?.status).toBe(413);
      expect(JSON.parse(answer?.body ?? "")).toEqual({ message: "Request body is too large" });
    });
  },
);
