/**
 * A Web Push service for tests (RFC 8030/8291/8292): an HTTPS server on 127.0.0.1 that
 * takes what `web-push` sends, checks the VAPID JWT (ES256, signed by the key in the
 * Authorization header, `aud` = this origin, `exp` within 24 h, a `sub`), and decrypts the
 * aes128gcm body with the test subscription's private keys (node:crypto ECDH + HKDF). Every
 * push it accepts is recorded with its TTL, Urgency and Topic.
 *
 *   const push = await startPushService();
 *   const sub = push.subscription();        // PushSubscription.toJSON() for the app
 *   push.gone(sub);                         // answers 410 from now on
 *   push.failNext(sub, 2);                  // answers 500 twice
 *   push.faulty("cut");                     // a subscription whose endpoint misbehaves (Fault)
 *
 * Another process (the browser test, the scale bench) reaches it through POST
 * /_fake/subscription (a new subscription; `?n=` a list of n), GET /_fake/received and GET
 * /_fake/count. `bun tests/fakes/push-service.ts` runs it alone (its URL and CA file on stdout).
 *
 * The certificate is self-signed (openssl): pass `push.caEnv` to a spawned server
 * (NODE_EXTRA_CA_CERTS), or call `push.trustInProcess()` in the test process. `caEnv` also
 * names this service's `127.0.0.1:port` in PUSH_HOSTS (after the default push services): the
 * app accepts endpoints only at those hosts (issue 45), so an in-process app gets it too
 * (`startApi(push.caEnv)`).
 */
import { createDecipheriv, createECDH, createPublicKey, hkdfSync, randomBytes, verify } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import https from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import tls from "node:tls";
import { DEFAULT_PUSH_HOSTS } from "../../src/lib/push-hosts";

export interface TestSubscription {
  endpoint: string;
  expirationTime: null;
  keys: { p256dh: string; auth: string };
}

export interface ReceivedPush {
  subscription: string;
  ttl: string | undefined;
  urgency: string | undefined;
  topic: string | undefined;
  /** The `k` of the Authorization header: the app's VAPID public key; `jwt`, its `t`. */
  vapidKey: string;
  jwt: string;
  claims: { aud: string; exp: number; sub: string };
  payload: unknown;
}

/**
 * How a faulty endpoint answers (issue 45): `cut` 201 with Content-Length 1000, two bytes, then
 * closes; `trickle` 201 with Content-Length 1000, then a byte every 200 ms; `stall` reads the
 * request and never answers; `huge` 400 with a 150 MB body, written as fast as it is read.
 */
export type Fault = "cut" | "trickle" | "stall" | "huge";

export interface PushService {
  url: string;
  caFile: string;
  caEnv: { NODE_EXTRA_CA_CERTS: string; PUSH_HOSTS: string };
  received: ReceivedPush[];
  /** Requests it refused (bad JWT, undecryptable body), with why. */
  refused: string[];
  /** TLS connections accepted so far; the most push requests it has had open at once. */
  stats: { connections: number; inFlight: number; maxInFlight: number };
  subscription(): TestSubscription;
  /** A subscription on a raw TLS listener (same certificate) that answers with `fault`. */
  faulty(fault: Fault): TestSubscription;
  /** Requests the faulty endpoints got, and the bytes of answer they managed to write. */
  faults: { requests: number; written: number };
  gone(sub: TestSubscription): void;
  failNext(sub: TestSubscription, times: number): void;
  trustInProcess(): void;
  close(): Promise<void>;
}

const b64url = (buf: Buffer) => buf.toString("base64url");

interface Keys {
  ecdh: ReturnType<typeof createECDH>;
  auth: Buffer;
}

/** RFC 8291: the plaintext of an aes128gcm body for the holder of `keys`. */
function decrypt(body: Buffer, keys: Keys): Buffer {
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const idLength = body.readUInt8(20);
  const serverKey = body.subarray(21, 21 + idLength);
  const ciphertext = body.subarray(21 + idLength);
  if (ciphertext.length > recordSize) throw new Error("more than one record");
  const shared = keys.ecdh.computeSecret(serverKey);
  const keyInfo = Buffer.concat([Buffer.from("WebPush: info\0"), keys.ecdh.getPublicKey(), serverKey]);
  const ikm = Buffer.from(hkdfSync("sha256", shared, keys.auth, keyInfo, 32));
  const cek = Buffer.from(hkdfSync("sha256", ikm, salt, Buffer.from("Content-Encoding: aes128gcm\0"), 16));
  const nonce = Buffer.from(hkdfSync("sha256", ikm, salt, Buffer.from("Content-Encoding: nonce\0"), 12));
  const decipher = createDecipheriv("aes-128-gcm", cek, nonce);
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  const padded = Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - 16)), decipher.final()]);
  const end = padded.lastIndexOf(2); // the last record's delimiter, then zero padding
  if (end < 0 || padded.subarray(end + 1).some((b) => b !== 0)) throw new Error("bad padding");
  return padded.subarray(0, end);
}

/** Authorization headers whose signature verified (the app reuses one JWT for hours). */
const verified = new Set<string>();

/** RFC 8292: the claims of a VAPID JWT, after checking its ES256 signature with `k` (once per header). */
function checkVapid(
  header: string | undefined,
  origin: string,
): { k: string; jwt: string; claims: ReceivedPush["claims"] } {
  const match = header?.match(/^vapid t=([\w-]+\.[\w-]+\.[\w-]+), k=([\w-]+)$/);
  if (!match) throw new Error(`Authorization is not 'vapid t=…, k=…': ${header}`);
  const [, jwt, k] = match as unknown as [string, string, string];
  const [head, body, sig] = jwt.split(".") as [string, string, string];
  const alg = JSON.parse(Buffer.from(head, "base64url").toString()) as { alg?: string };
  if (alg.alg !== "ES256") throw new Error(`alg ${alg.alg}`);
  const raw = Buffer.from(k, "base64url");
  if (raw.length !== 65 || raw[0] !== 4) throw new Error("k is not an uncompressed P-256 point");
  const key = createPublicKey({
    key: { kty: "EC", crv: "P-256", x: b64url(raw.subarray(1, 33)), y: b64url(raw.subarray(33)) },
    format: "jwk",
  });
  const ok =
    verified.has(header as string) ||
    verify("sha256", Buffer.from(`${head}.${body}`), { key, dsaEncoding: "ieee-p1363" }, Buffer.from(sig, "base64url"));
  if (!ok) throw new Error("JWT signature does not verify");
  verified.add(header as string);
  const claims = JSON.parse(Buffer.from(body, "base64url").toString()) as ReceivedPush["claims"];
  const nowSeconds = Date.now() / 1000;
  if (claims.aud !== origin) throw new Error(`aud ${claims.aud} is not ${origin}`);
  if (!(claims.exp > nowSeconds && claims.exp <= nowSeconds + 24 * 3600 + 60)) throw new Error("exp not within 24 h");
  if (!/^(mailto:|https:)/.test(claims.sub ?? "")) throw new Error(`sub ${claims.sub}`);
  return { k, jwt, claims };
}

const faultySockets = new Set<tls.TLSSocket>();
const HUGE_BYTES = 150 * 1024 * 1024;

/** Writes the answer of `fault` on the raw socket (see Fault). */
function answerFaulty(socket: tls.TLSSocket, fault: Fault, faults: { written: number }) {
  faultySockets.add(socket);
  socket.on("close", () => faultySockets.delete(socket));
  const write = (text: string | Buffer) => {
    if (socket.destroyed) return false;
    faults.written += text.length;
    return socket.write(text);
  };
  if (fault === "cut") {
    write("HTTP/1.1 201 Created\r\nContent-Length: 1000\r\n\r\nok");
    socket.end();
  } else if (fault === "trickle") {
    write("HTTP/1.1 201 Created\r\nContent-Length: 1000\r\n\r\n");
    const timer = setInterval(() => (socket.destroyed ? clearInterval(timer) : write(".")), 200);
  } else if (fault === "huge") {
    write(`HTTP/1.1 400 Bad Request\r\nContent-Length: ${HUGE_BYTES}\r\n\r\n`);
    const chunk = Buffer.alloc(64 * 1024, 120);
    let sent = 0;
    const pump = () => {
      while (sent < HUGE_BYTES && !socket.destroyed) {
        sent += chunk.length;
        if (!write(chunk)) return void socket.once("drain", pump);
      }
    };
    pump();
  }
  // "stall": nothing, ever.
}
/** PUSH_HOSTS for an app that delivers to a test service on `ports`: the defaults and them. */
export const testPushHosts = (...ports: number[]) =>
  [...DEFAULT_PUSH_HOSTS, ...ports.map((port) => `127.0.0.1:${port}`)].join(",");

/** `port`: a fixed one (the end-to-end server's, so the browser test finds it); else any free one. */
export async function startPushService(options: { port?: number } = {}): Promise<PushService> {
  const dir = mkdtempSync(join(tmpdir(), "push-service-"));
  const keyFile = join(dir, "key.pem");
  const caFile = join(dir, "cert.pem");
  const made = Bun.spawnSync([
    "openssl",
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-keyout",
    keyFile,
    "-out",
    caFile,
    "-days",
    "2",
    "-subj",
    "/CN=127.0.0.1",
    "-addext",
    "subjectAltName=IP:127.0.0.1",
  ]);
  if (made.exitCode !== 0) throw new Error(`openssl failed: ${made.stderr.toString()}`);
  const subscriptions = new Map<string, Keys>();
  const goneIds = new Set<string>();
  const failures = new Map<string, number>();
  const received: ReceivedPush[] = [];
  const refused: string[] = [];
  const stats = { connections: 0, inFlight: 0, maxInFlight: 0 };
  let origin = "";

  const server = https.createServer({ key: readFileSync(keyFile), cert: readFileSync(caFile) }, (req, res) => {
    const chunks: Buffer[] = [];
    stats.maxInFlight = Math.max(stats.maxInFlight, ++stats.inFlight);
    res.on("finish", () => stats.inFlight--);
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      // Control paths for a test in another process (tests/e2e/reminders.spec.ts).
      const control = new URL(req.url ?? "/", origin);
      const answer = (body: unknown) =>
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
      if (control.pathname === "/_fake/subscription" && req.method === "POST") {
        const n = control.searchParams.get("n");
        return answer(n ? Array.from({ length: Number(n) }, () => service.subscription()) : service.subscription());
      }
      if (control.pathname === "/_fake/received" && req.method === "GET") return answer({ received, refused });
      if (control.pathname === "/_fake/count" && req.method === "GET") {
        const distinct = new Set(received.map((r) => r.subscription)).size;
        return answer({ received: received.length, distinct, refused: refused.length });
      }
      const id = req.url?.match(/^\/push\/([\w-]+)$/)?.[1] ?? "";
      const keys = subscriptions.get(id);
      if (req.method !== "POST" || !keys) {
        res.writeHead(404).end();
        return;
      }
      if (goneIds.has(id)) {
        res.writeHead(410).end();
        return;
      }
      const left = failures.get(id) ?? 0;
      if (left > 0) {
        failures.set(id, left - 1);
        res.writeHead(500).end();
        return;
      }
      try {
        if (req.headers["content-encoding"] !== "aes128gcm") throw new Error("Content-Encoding is not aes128gcm");
        if (!req.headers.ttl) throw new Error("no TTL");
        const { k, jwt, claims } = checkVapid(req.headers.authorization, origin);
        const plain = decrypt(Buffer.concat(chunks), keys);
        received.push({
          subscription: id,
          ttl: req.headers.ttl as string,
          urgency: req.headers.urgency as string | undefined,
          topic: req.headers.topic as string | undefined,
          vapidKey: k,
          jwt,
          claims,
          payload: JSON.parse(plain.toString("utf8")),
        });
        res.writeHead(201).end();
      } catch (error) {
        refused.push((error as Error).message);
        res.writeHead(400).end((error as Error).message);
      }
    });
  });
  server.on("secureConnection", () => stats.connections++);
  const faults = { requests: 0, written: 0 };
  const faultOf = new Map<string, Fault>();
  const faultyServer = tls.createServer({ key: readFileSync(keyFile), cert: readFileSync(caFile) }, (socket) => {
    socket.on("error", () => {});
    let head = "";
    const onData = (chunk: Buffer) => {
      head += chunk.toString("latin1");
      const id = head.match(/^POST \/push\/([\w-]+) /)?.[1];
      if (!id || !head.includes("\r\n\r\n")) return;
      socket.off("data", onData);
      faults.requests++;
      answerFaulty(socket, faultOf.get(id) ?? "stall", faults);
    };
    socket.on("data", onData);
  });
  await new Promise<void>((resolve) => faultyServer.listen(0, "127.0.0.1", resolve));
  const faultyOrigin = `https://127.0.0.1:${(faultyServer.address() as { port: number }).port}`;
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  origin = `https://127.0.0.1:${port}`;

  const idOf = (sub: TestSubscription) => sub.endpoint.split("/").pop() as string;
  const keysFor = (id: string) => {
    const ecdh = createECDH("prime256v1");
    ecdh.generateKeys();
    const auth = randomBytes(16);
    subscriptions.set(id, { ecdh, auth });
    return { p256dh: b64url(ecdh.getPublicKey()), auth: b64url(auth) };
  };
  const service: PushService = {
    url: origin,
    caFile,
    // Both of the service's ports: the well-behaved one and the faulty endpoints' (issue 45).
    caEnv: { NODE_EXTRA_CA_CERTS: caFile, PUSH_HOSTS: testPushHosts(port, Number(new URL(faultyOrigin).port)) },
    received,
    refused,
    stats,
    subscription() {
      const id = crypto.randomUUID();
      return { endpoint: `${origin}/push/${id}`, expirationTime: null, keys: keysFor(id) };
    },
    faulty(fault) {
      const id = crypto.randomUUID();
      faultOf.set(id, fault);
      return { endpoint: `${faultyOrigin}/push/${id}`, expirationTime: null, keys: keysFor(id) };
    },
    faults,
    gone: (sub) => goneIds.add(idOf(sub)),
    failNext: (sub, times) => failures.set(idOf(sub), times),
    trustInProcess() {
      https.globalAgent.options.ca = readFileSync(caFile);
    },
    async close() {
      server.closeAllConnections(); // the app keeps connections open
      for (const socket of faultySockets) socket.destroy();
      await new Promise<void>((resolve) => faultyServer.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return service;
}

if (import.meta.main) {
  const push = await startPushService();
  process.on("SIGTERM", () => void push.close().finally(() => process.exit(0)));
  console.log(JSON.stringify({ url: push.url, caFile: push.caFile, pushHosts: push.caEnv.PUSH_HOSTS }));
}
