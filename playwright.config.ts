/**
 * End-to-end tests in Debian's Chromium (never `playwright install`) against the built
 * app (`bun --bun astro build` first), started on a fresh database by tests/e2e/start-server.ts.
 */
import { defineConfig, devices } from "@playwright/test";

const PORT = Number(process.env.E2E_PORT ?? 4329);
const CI = Boolean(process.env.CI);

export default defineConfig({
  testDir: "tests/e2e",
  testMatch: "**/*.spec.ts",
  outputDir: "test-results",
  // Two cores: the browser, the server and the database share them.
  workers: 2,
  fullyParallel: true,
  forbidOnly: CI,
  // On CI one retry, so that a rare timing flake does not block a landing; a test that
  // passes only on retry is still reported ("flaky", listed by .ci/run's summary).
  retries: CI ? 1 : 0,
  // Hang guards, not speed targets: a journey with several axe checks takes 15-22 s with two
  // workers on two cores beside the server and the database, and a slow CI machine took such
  // journeys past 30 s (and a hydrated page's first button past 5 s).
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: CI ? [["list"], ["html", { open: "never" }]] : [["list"]],
  use: {
    baseURL: `http://localhost:${PORT}`,
    // A trace of a test's retry only (CI retries once; `--trace on` records every test). Recording
    // one for every test, to keep it on failure, cost a third of the suite's time on two cores:
    // 14 responsive tests took 2.2 min with it and 1.5 min without.
    trace: "on-first-retry",
    screenshot: "only-on-failure",
    // The dashboard's service worker answers fetches (offline Today, issue 40), and a request of
    // a page it controls may pass by page.route. Specs about the worker turn it back on.
    serviceWorkers: "block",
  },
  projects: [
    {
      name: "chromium",
      use: {
        ...devices["Desktop Chrome"],
        launchOptions: {
          executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
          args: [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--no-first-run",
            "--disable-sync",
          ],
        },
      },
    },
  ],
  webServer: {
    command: "bun tests/e2e/start-server.ts",
    url: `http://localhost:${PORT}/api/health`,
    env: { E2E_PORT: String(PORT) },
    // Always a fresh server on a fresh database.
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: "pipe",
    stderr: "pipe",
    gracefulShutdown: { signal: "SIGTERM", timeout: 15_000 },
  },
});
