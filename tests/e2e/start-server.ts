/**
 * Playwright's webServer: the built app (`bun server.ts`) on port 4329 with a fresh
 * database: a new Postgres database when TEST_DATABASE_URL is set, else a new PGlite
 * folder. The database is removed when the server stops.
 *
 *   bun tests/e2e/start-server.ts      (after `bun --bun astro build`)
 */
import { startPushService } from "../fakes/push-service";
import { startFakeStripe } from "../fakes/stripe-server";
import { createTestDatabase } from "../support/db";
import { hasBuild, ROOT, serverEnv, shippedEnv } from "../support/process";

const E2E_PORT = Number(process.env.E2E_PORT ?? 4329);

if (!hasBuild()) {
  console.error("dist/ is missing: run `bun --bun run build` before the end-to-end tests.");
  process.exit(1);
}
const database = await createTestDatabase({ pgliteDir: true });
// Stripe is the local fake (tests/fakes/stripe-server.ts): the app's SDK talks to it and it
// sends signed webhooks back. billing.spec.ts finds it on E2E_STRIPE_PORT (E2E_PORT + 10).
const stripe = await startFakeStripe({
  port: Number(process.env.E2E_STRIPE_PORT ?? E2E_PORT + 10),
  webhookUrl: `http://localhost:${E2E_PORT}/api/stripe/webhook`,
});
// Web Push goes to the local push service (tests/fakes/push-service.ts), trusted through
// NODE_EXTRA_CA_CERTS; reminders.spec.ts finds it on E2E_PUSH_PORT (E2E_PORT + 11).
const push = await startPushService({ port: Number(process.env.E2E_PUSH_PORT ?? E2E_PORT + 11) });
const child = Bun.spawn([process.execPath, "server.ts"], {
  cwd: ROOT,
  env: serverEnv({
    ...shippedEnv(),
    ...database.env,
    ...stripe.env(),
    ...push.caEnv,
    PORT: String(E2E_PORT),
    HOST: "0.0.0.0",
    PUBLIC_ORIGIN: `http://localhost:${E2E_PORT}`,
    // Premium's 'Priority support' is promised only with an address to write to (issue 51).
    CONTACT_EMAIL: "help@stacktrack.example",
    LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? "warn",
  }),
  stdin: "ignore",
  stdout: "inherit",
  stderr: "inherit",
});

let stopping = false;
const stop = (signal: NodeJS.Signals) => {
  if (stopping) return;
  stopping = true;
  if (child.exitCode === null) child.kill(signal);
};
process.on("SIGTERM", () => stop("SIGTERM"));
process.on("SIGINT", () => stop("SIGINT"));

const code = await child.exited;
await push.close();
await database.drop().catch((error) => console.error("could not remove the test database:", error));
process.exit(code);
