/**
 * Calls to Stripe under our own bounds (issue 45, api/billing/stripe.ts over api/lib/outbound.ts): against
 * a "Stripe" that never answers, trickles, or answers far more than any Stripe object, the SDK
 * call fails with a Stripe error after at most three attempts (the call and its two retries),
 * and what was read of the answers stays near the 1 MB bound. A well-formed answer still works.
 * A call that never settled would fail this file by its test timeout (no timing is asserted).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { getStripe, isStripeError } from "../../api/billing/stripe";
import { parseConfig } from "../../api/lib/config";

type Mode = "ok" | "stall" | "trickle" | "huge" | "declared";
let server: ReturnType<typeof Bun.serve>;
const seen = { requests: 0, pulled: 0 };

/** A stream of `total` bytes of JSON-ish text, counting what the client pulled. */
function counted(total: number, every = 0): ReadableStream<Uint8Array> {
  const chunk = new Uint8Array(64 * 1024).fill(32);
  let sent = 0;
  return new ReadableStream({
    async pull(controller) {
      if (every) await Bun.sleep(every);
      if (sent >= total) return controller.close();
      const piece = every ? chunk.subarray(0, 1) : chunk;
      sent += piece.length;
      seen.pulled += piece.length;
      controller.enqueue(piece);
    },
  });
}

beforeAll(() => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    fetch(request) {
      seen.requests++;
      const mode = new URL(request.url).pathname.split("/").pop() as Mode;
      const json = { "content-type": "application/json" };
      if (mode === "ok") return Response.json({ id: "ok", object: "customer" });
      if (mode === "stall") return new Promise<Response>(() => {});
      if (mode === "trickle") return new Response(counted(1000, 200), { headers: json });
      if (mode === "declared")
        return new Response(counted(2 * 1024 * 1024), {
          headers: { ...json, "content-length": String(2 * 1024 * 1024) },
        });
      return new Response(counted(150 * 1024 * 1024), { headers: json });
    },
  });
});
afterAll(() => server?.stop(true));

const stripe = () => {
  const client = getStripe(
    parseConfig({
      STRIPE_SECRET_KEY: "sk_test_bounds",
      PUBLIC_STRIPE_PUBLISHABLE_KEY: "pk_test_bounds",
      STRIPE_WEBHOOK_SECRET: "whsec_bounds",
      STRIPE_PRICE_ID: "price_bounds",
      STRIPE_API_BASE: `http://127.0.0.1:${server.port}`,
      OUTBOUND_TIMEOUT_MS: "500",
    }),
  );
  if (!client) throw new Error("billing is off");
  return client;
};

test.each([
  ["no answer at all", "stall"],
  ["an answer trickling a byte every 200 ms", "trickle"],
  ["an answer of 150 MB", "huge"],
  ["an answer declaring 2 MB", "declared"],
] as [string, Mode][])("%s: a Stripe error after at most 3 attempts, what is read stays bounded", async (_, mode) => {
  seen.requests = 0;
  seen.pulled = 0;
  const error = await stripe()
    .customers.retrieve(mode)
    .then(
      () => null,
      (e: unknown) => e,
    );
  expect(isStripeError(error)).toBe(true);
  expect(seen.requests).toBeGreaterThanOrEqual(1);
  expect(seen.requests).toBeLessThanOrEqual(3);
  // Per attempt: the 1 MB read, plus what the server had pushed into buffers when the client
  // hung up (about 8 MB here), never the 150 MB offered.
  expect(seen.pulled).toBeLessThan(seen.requests * 10 * 1024 * 1024);
});

test("a well-formed answer is read as before", async () => {
  const customer = await stripe().customers.retrieve("ok");
  expect(customer.id).toBe("ok");
});
