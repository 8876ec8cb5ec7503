/**
 * Shared StrykerJS settings for `npm run test:mutation` (scripts/mutation.ts): the command
 * runner over `bun test`, one module and the test files that cover it per config. See docs/mutation-testing.md.
 *
 * Bun's test runner cannot be instrumented by Stryker, so every mutant is one
 * `bun test --bail <files>` run (coverageAnalysis "off": every mutant runs the module's files).
 * MUTATION_CONCURRENCY sets the parallel runs (default 1: the machine is small and shared).
 */

/** What the sandbox copy of the project leaves out (a config that needs the build keeps "dist"). */
export const IGNORE_PATTERNS = [
  "dist",
  "data",
  "test-results",
  "playwright-report",
  ".astro",
  "reports",
  "bench",
  "public",
  "tests/e2e",
];

/**
 * @param {string} name the module's name (report file reports/mutation/<name>.json)
 * @param {string[]} mutate files (or `file:start-end` line ranges) to mutate
 * @param {string[]} tests the test files that cover them
 * @param {object} [extra] more Stryker options
 */
export function moduleConfig(name, mutate, tests, extra = {}) {
  return {
    testRunner: "command",
    commandRunner: { command: `bun test --timeout 20000 --bail ${tests.join(" ")}` },
    mutate,
    coverageAnalysis: "off",
    concurrency: Number(process.env.MUTATION_CONCURRENCY ?? 1),
    // A mutant that makes the run hang (an endless loop) is killed as a timeout.
    timeoutMS: 60_000,
    timeoutFactor: 2,
    tempDirName: ".stryker-tmp",
    cleanTempDir: "always",
    ignorePatterns: IGNORE_PATTERNS,
    reporters: ["clear-text", "progress-append-only", "json"],
    jsonReporter: { fileName: `reports/mutation/${name}.json` },
    thresholds: { high: 90, low: 80, break: null },
    ...extra,
  };
}
