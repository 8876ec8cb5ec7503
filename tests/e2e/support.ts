/** Helpers shared by the Playwright specs. */
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

export interface A11yOptions {
  /** CSS selectors left out of the scan. */
  exclude?: string[];
  /** axe rule ids not to run (say why at the call site). */
  disableRules?: string[];
}

/** Runs axe (WCAG 2.2 A and AA, plus best practices) on the page as it is now; fails with a readable list. */
export async function expectNoA11yViolations(page: Page, options: A11yOptions = {}): Promise<void> {
  let builder = new AxeBuilder({ page }).withTags([
    "wcag2a",
    "wcag2aa",
    "wcag21a",
    "wcag21aa",
    "wcag22aa",
    "best-practice",
  ]);
  for (const selector of options.exclude ?? []) builder = builder.exclude(selector);
  if (options.disableRules?.length) builder = builder.disableRules(options.disableRules);
  const { violations } = await builder.analyze();
  const report = violations
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help}\n${v.nodes
          .slice(0, 5)
          .map((n) => `    ${n.target.join(" ")}: ${n.failureSummary?.split("\n").join(" ")}`)
          .join("\n")}`,
    )
    .join("\n");
  expect(violations.length, `accessibility violations on ${page.url()}:\n${report}`).toBe(0);
}

/** Elements that stick out of the viewport horizontally, and whether the page scrolls sideways. */
export async function horizontalOverflow(page: Page): Promise<{ scrolls: boolean; offenders: string[] }> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const scrolls = document.documentElement.scrollWidth > width || document.body.scrollWidth > width;
    const offenders: string[] = [];
    for (const el of Array.from(document.body.querySelectorAll("*"))) {
      const rect = el.getBoundingClientRect();
      const style = getComputedStyle(el);
      if (rect.width <= 1 || rect.height <= 1 || style.visibility === "hidden" || style.display === "none") continue;
      if (rect.right > width + 0.5 || rect.left < -0.5) {
        const name = `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}.${[...el.classList].join(".")}`;
        offenders.push(`${name} [${Math.round(rect.left)}, ${Math.round(rect.right)}] > ${width}`);
      }
    }
    return { scrolls, offenders };
  });
}
