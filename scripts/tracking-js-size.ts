/**
 * What the dashboard's tracking cards (issue 19: Today and History) add to its JavaScript,
 * against the budget of 15 KB gzipped. From the built client (`bun --bun run build`
 * first): the chunks that the dashboard's islands and the React renderer load statically
 * (dynamic imports, loaded on use, are left out), with and without TodayCard and HistoryCard;
 * each file gzipped at level 9 and summed.
 *
 *   bun scripts/tracking-js-size.ts
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const DIR = "dist/client/_astro";
/** The islands of src/pages/dashboard.astro and its layout, other than the tracking cards. */
const OTHERS = [
  "TopBar",
  "Toaster",
  "DashboardHeader",
  "StatCards",
  "SupplementList",
  "ProfileCard",
  "DashboardDialogs",
  "InsightsCard",
];
const TRACKING = ["TodayCard", "HistoryCard"];
const BUDGET_GZIP = 15 * 1024;

const files = readdirSync(DIR).filter((file) => file.endsWith(".js"));
const entry = (name: string): string => {
  const found = files.filter((file) => file.startsWith(`${name}.`));
  if (found.length !== 1) throw new Error(`${name}: ${found.length} entry chunks in ${DIR}`);
  return found[0] as string;
};
const renderers = files.filter((file) => /^client\.[\w-]+\.js$/.test(file));

const STATIC_IMPORT = /(?:import|export)\s*(?:[\w$*{}\s,]*?\s*from\s*)?["']\.\/([^"']+\.js)["']/g;
const importsOf = new Map<string, string[]>();
function reachable(entries: string[]): Set<string> {
  const seen = new Set<string>();
  const stack = [...entries];
  while (stack.length > 0) {
    const file = stack.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    let imports = importsOf.get(file);
    if (!imports) {
      const code = readFileSync(join(DIR, file), "utf8");
      imports = [...code.matchAll(STATIC_IMPORT)].map((match) => match[1] as string);
      importsOf.set(file, imports);
    }
    stack.push(...imports);
  }
  return seen;
}

const gzip = (file: string) => Bun.gzipSync(readFileSync(join(DIR, file)), { level: 9 }).byteLength;
const sum = (set: Iterable<string>) => [...set].reduce((total, file) => total + gzip(file), 0);
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

const without = reachable([...renderers, ...OTHERS.map(entry)]);
const withCards = reachable([...renderers, ...OTHERS.map(entry), ...TRACKING.map(entry)]);
const added = [...withCards].filter((file) => !without.has(file));
const addedBytes = sum(added);
console.log(
  `dashboard JavaScript, gzipped: ${kb(sum(without))} without the tracking cards, ${kb(sum(withCards))} with`,
);
for (const file of added.sort()) console.log(`  + ${file}: ${kb(gzip(file))}`);
console.log(`the Today and History cards add ${kb(addedBytes)} gzipped (budget ${kb(BUDGET_GZIP)})`);
// Each card alone, the other one already there (the budget is the History card's).
for (const card of TRACKING) {
  const rest = reachable([...renderers, ...OTHERS.map(entry), ...TRACKING.filter((c) => c !== card).map(entry)]);
  console.log(`  ${card} alone adds ${kb(sum([...withCards].filter((file) => !rest.has(file))))}`);
}
if (addedBytes > BUDGET_GZIP) process.exitCode = 1;
