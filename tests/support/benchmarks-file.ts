/**
 * BENCHMARKS.md's sections written by other scripts than `npm run bench` (test:deploy,
 * bench/reminders.ts), each between `<!-- name start -->` and `<!-- name end -->`; the bench
 * keeps them when it writes the rest.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./process";

export const BENCHMARKS_PATH = join(ROOT, "BENCHMARKS.md");

/** Every such section of `text`, markers included. */
export const keptSections = (text: string): string[] =>
  text.match(/<!-- [\w:]+ start -->[\s\S]*?<!-- [\w:]+ end -->/g) ?? [];

/** Puts `body` as section `name` in BENCHMARKS.md: in place of the one there, or at the end. */
export function writeSection(name: string, body: string, path = BENCHMARKS_PATH): void {
  const [start, end] = [`<!-- ${name} start -->`, `<!-- ${name} end -->`];
  const block = `${start}\n${body}\n${end}`;
  const text = readFileSync(path, "utf8");
  const a = text.indexOf(start);
  const b = text.indexOf(end);
  writeFileSync(
    path,
    a >= 0 && b > a ? `${text.slice(0, a)}${block}${text.slice(b + end.length)}` : `${text.trimEnd()}\n\n${block}\n`,
  );
}
