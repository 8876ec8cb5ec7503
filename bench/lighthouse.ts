/**
 * Lighthouse (the npm package) driving Debian's Chromium through chrome-launcher,
 * headless, with Lighthouse's desktop preset (its default simulated throttling for
 * desktop). Each page is audited `runs` times; the median run (by performance
 * score) is reported, with every run's performance score alongside.
 */
import * as chromeLauncher from "chrome-launcher";
import lighthouse, { type Result } from "lighthouse";
import desktopConfig from "lighthouse/core/config/desktop-config.js";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "./js-size";

export const CATEGORIES = ["performance", "accessibility", "best-practices", "seo"] as const;
export type Category = (typeof CATEGORIES)[number];

export interface LighthouseResult {
  name: string;
  url: string;
  /** Scores 0–100 of the median run. */
  scores: Record<Category, number>;
  performanceRuns: number[];
  metrics: { fcpMs: number; lcpMs: number; tbtMs: number; cls: number; speedIndexMs: number };
  /** Audits that scored below 1 in the non-performance categories (why a score is not 100). */
  failing: string[];
  lighthouseVersion: string;
  warnings: string[];
  /** Runs taken again after a transient runtime error, e.g. "run 2 taken again after NO_NAVSTART". */
  retried: string[];
}

/** Runtime errors after which Lighthouse asks to be run again, and how many times a run is tried. */
const TRANSIENT = new Set(["NO_NAVSTART"]);
const MAX_ATTEMPTS = 3;

export async function runLighthouse(pages: { name: string; url: string }[], runs: number): Promise<LighthouseResult[]> {
  const chrome = await chromeLauncher.launch({
    chromePath: CHROMIUM_PATH,
    chromeFlags: ["--headless=new", ...CHROMIUM_ARGS],
    logLevel: "silent",
  });
  try {
    const results: LighthouseResult[] = [];
    for (const page of pages) {
      const lhrs: Result[] = [];
      const retried: string[] = [];
      for (let i = 0; i < runs; i++) {
        for (let attempt = 1; ; attempt++) {
          const result = await lighthouse(
            page.url,
            { port: chrome.port, output: "json", logLevel: "error", onlyCategories: [...CATEGORIES] },
            desktopConfig,
          );
          if (!result) throw new Error(`Lighthouse gave no result for ${page.url}`);
          const error = result.lhr.runtimeError;
          if (!error) {
            lhrs.push(result.lhr);
            break;
          }
          // Chromium's trace sometimes lacks the navigation start (NO_NAVSTART): Lighthouse's own
          // advice is to run it again. Anything else, or a third time, fails the measurement.
          if (!TRANSIENT.has(error.code) || attempt >= MAX_ATTEMPTS) {
            throw new Error(`Lighthouse failed on ${page.url}: ${error.message}`);
          }
          retried.push(`run ${i + 1} taken again after ${error.code}`);
        }
      }
      const score = (lhr: Result, c: Category) => Math.round((lhr.categories[c]?.score ?? 0) * 100);
      const sorted = [...lhrs].sort((a, b) => score(a, "performance") - score(b, "performance"));
      const median = sorted[Math.floor(sorted.length / 2)];
      if (!median) throw new Error("no Lighthouse run");
      const audit = (id: string) => median.audits[id]?.numericValue ?? Number.NaN;
      const failing: string[] = [];
      for (const category of CATEGORIES.filter((c) => c !== "performance")) {
        for (const ref of median.categories[category]?.auditRefs ?? []) {
          const a = median.audits[ref.id];
          if (a && ref.weight > 0 && a.score !== null && a.score < 1) failing.push(`${category}: ${a.id} (${a.title})`);
        }
      }
      results.push({
        name: page.name,
        url: page.url,
        scores: Object.fromEntries(CATEGORIES.map((c) => [c, score(median, c)])) as Record<Category, number>,
        performanceRuns: lhrs.map((l) => score(l, "performance")),
        metrics: {
          fcpMs: audit("first-contentful-paint"),
          lcpMs: audit("largest-contentful-paint"),
          tbtMs: audit("total-blocking-time"),
          cls: audit("cumulative-layout-shift"),
          speedIndexMs: audit("speed-index"),
        },
        failing,
        lighthouseVersion: median.lighthouseVersion,
        warnings: median.runWarnings,
        retried,
      });
    }
    return results;
  } finally {
    chrome.kill();
  }
}
