/**
 * `npm run sizes`: lines of code per top-level folder and per api/ subfolder, of the files git
 * tracks (TypeScript, Astro, JavaScript, CSS, Lua, SQL, shell; not JSON, Markdown or images).
 * The README's architecture map quotes its output.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..");
const CODE = /\.(ts|tsx|astro|mjs|js|css|lua|sql|sh)$/;

const files = Bun.spawnSync(["git", "ls-files"], { cwd: ROOT })
  .stdout.toString()
  .split("\n")
  .filter((f) => CODE.test(f) || f === ".ci/run");

const lines = (file: string) => readFileSync(join(ROOT, file), "utf8").split("\n").length - 1;
const tally = (key: (file: string) => string | undefined) => {
  const out = new Map<string, { files: number; lines: number }>();
  for (const file of files) {
    const k = key(file);
    if (k === undefined) continue;
    const row = out.get(k) ?? { files: 0, lines: 0 };
    row.files++;
    row.lines += lines(file);
    out.set(k, row);
  }
  return [...out].sort((a, b) => b[1].lines - a[1].lines);
};
const print = (title: string, rows: [string, { files: number; lines: number }][]) => {
  console.log(`${title.padEnd(24)} ${"files".padStart(6)} ${"lines".padStart(7)}`);
  for (const [name, r] of rows)
    console.log(`${name.padEnd(24)} ${String(r.files).padStart(6)} ${String(r.lines).padStart(7)}`);
  const total = rows.reduce((sum, [, r]) => sum + r.lines, 0);
  console.log(`${"total".padEnd(24)} ${"".padStart(6)} ${String(total).padStart(7)}\n`);
};

print(
  "folder",
  tally((f) => (f.includes("/") ? `${f.split("/")[0]}/` : "(top-level files)")),
);
print(
  "api/",
  tally((f) => {
    if (!f.startsWith("api/")) return undefined;
    const parts = f.split("/");
    return parts.length > 2 ? `api/${parts[1]}/` : "api/*.ts";
  }),
);

// Issue 46's targets: tests ≤ 1.5× the app, no island file over 250 lines, api/ top level ≤ 8 files.
const APP = /^(api|src|db|server)\/|^server\.ts$/;
const sum = (pick: (f: string) => boolean) => files.filter(pick).reduce((n, f) => n + lines(f), 0);
const app = sum((f) => APP.test(f));
const tests = sum((f) => f.startsWith("tests/"));
const islands = files
  .filter((f) => f.startsWith("src/islands/"))
  .map((f) => [f, lines(f)] as const)
  .sort((a, b) => b[1] - a[1]);
const apiTop = files.filter((f) => /^api\/[^/]+$/.test(f));
const [largest] = islands;
console.log("targets (issue 46)");
console.log(`app lines ${app}, test lines ${tests}: tests are ${(tests / app).toFixed(2)}× the app (target ≤ 1.5)`);
if (largest) console.log(`largest file of src/islands/: ${largest[0]}, ${largest[1]} lines (target ≤ 250)`);
console.log(`api/ top level: ${apiTop.length} files (target ≤ 8)`);
