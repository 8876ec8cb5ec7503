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
/**
 * Waits for the page's finite animations and transitions to end (a toast's or a dialog's
 * fade-in): axe measures colours through the current opacity, so a check made mid-entrance
 * reads a half-faded button as low contrast. Endless ones (a spinner) are not waited for.
 */
async function settleAnimations(page: Page): Promise<void> {
  await page.evaluate(async () => {
    // Two frames: an entrance a render has just asked for (data-mounted) has started.
    for (let i = 0; i < 2; i++) await new Promise((resolve) => requestAnimationFrame(resolve));
    const finite = document
      .getAnimations()
      .filter((a) => Number.isFinite(a.effect?.getComputedTiming().endTime ?? Number.POSITIVE_INFINITY));
    // A paused one would never finish: two seconds at most.
    const ended = Promise.all(finite.map((a) => a.finished.catch(() => undefined)));
    await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 2000))]);
  });
}

export async function expectNoA11yViolations(page: Page, options: A11yOptions = {}): Promise<void> {
  let builder = new AxeBuilder({ page }).withTags([
    "wcag2a",
    "wcag2aa",
    "wcag21a",
    "wcag21aa",
    "wcag22aa",
    "best-practice",
  ]);
  // With no frame but the page itself, axe's "legacy mode" (one axe.run in the page) checks
  // exactly what the default does, without the default's blank page opened to merge the
  // frames' results: about 1.4 s a check on the dashboard instead of 3-4 s, which under two
  // workers on two cores took the dashboard's three checks past the test timeout. A page
  // with frames (Stripe's) keeps the default, which reaches into them.
  if (page.frames().length === 1) builder = builder.setLegacyMode(true);
  await settleAnimations(page);
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

export interface HorizontalOverflow {
  /** The viewport's width (`innerWidth`). */
  width: number;
  /** `document.documentElement.scrollWidth`. */
  scrollWidth: number;
  /** The page scrolls sideways: scrollWidth > innerWidth. */
  scrolls: boolean;
  /**
   * Visible elements whose box, or text whose line, passes the viewport's left or right
   * edge; text squeezed out of its own box (over its neighbours); scroll containers (other
   * than form fields) that scroll sideways. As readable lines, e.g.
   * `selector "text…" [left, right] w=… +N px past the right edge`; the innermost first.
   */
  offenders: string[];
}

/**
 * What of the page sticks out sideways at the current viewport size. An element counts by
 * the part of it one can see: clipped by an ancestor with overflow other than `visible`
 * (following position: absolute/fixed to their containing block, as the browser does), it
 * counts only as far as that ancestor reaches; that ancestor is itself checked. <html> and
 * <body> never count as clipping (overflow-x: hidden there would hide the problem, not fix
 * it). Skipped: display: none, visibility: hidden, and visually hidden boxes (sr-only:
 * at most 1×1 px with overflow hidden) with everything inside them. 0.5 px of tolerance for
 * subpixel rounding (1 px for text spilling out of its box).
 */
export async function horizontalOverflow(page: Page): Promise<HorizontalOverflow> {
  // Two frames: the layout after a resize or an opened dialog has settled.
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  return page.evaluate(() => {
    const TOLERANCE = 0.5;
    const width = window.innerWidth;
    const root = document.documentElement;
    const scrollWidth = root.scrollWidth;
    const px = (value: string) => Number.parseFloat(value) || 0;
    const visuallyHidden = (el: Element, s: CSSStyleDeclaration) => {
      const r = el.getBoundingClientRect();
      return (
        (r.width <= 1 && r.height <= 1 && s.overflow !== "visible") ||
        s.clip === "rect(0px, 0px, 0px, 0px)" ||
        /^inset\((50|100)%\)$/.test(s.clipPath)
      );
    };
    const containsFixed = (s: CSSStyleDeclaration) =>
      s.transform !== "none" ||
      s.perspective !== "none" ||
      s.filter !== "none" ||
      (s.backdropFilter ?? "none") !== "none" ||
      /paint|layout|strict|content/.test(s.contain) ||
      /transform|perspective|filter/.test(s.willChange);
    const selectorOf = (el: Element) => {
      const name = (e: Element) =>
        `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ""}${[...e.classList]
          .slice(0, 6)
          .map((c) => `.${CSS.escape(c)}`)
          .join("")}`;
      const path = [name(el)];
      for (let a = el.parentElement; a && a !== document.body && path.length < 3; a = a.parentElement)
        path.unshift(name(a));
      const text = (el.textContent ?? "").replace(/\s+/g, " ").trim();
      return `${path.join(" > ")}${text ? ` "${text.length > 40 ? `${text.slice(0, 40)}…` : text}"` : ""}`;
    };

    /**
     * The part of [left, right] one can see, clipped by the ancestors from `from` up that
     * clip a box of `position`; null when an ancestor hides it.
     */
    function visibleExtent(from: Element | null, position: string, left: number, right: number) {
      for (let a = from; a && a !== document.body && a !== root; a = a.parentElement) {
        const s = getComputedStyle(a);
        const applies =
          position === "fixed"
            ? containsFixed(s)
            : position === "absolute"
              ? s.position !== "static" || containsFixed(s)
              : true;
        if (!applies) continue;
        if (s.display === "none" || visuallyHidden(a, s)) return null;
        if (s.overflowX !== "visible") {
          const box = a.getBoundingClientRect();
          left = Math.max(left, box.left + px(s.borderLeftWidth));
          right = Math.min(right, box.right - px(s.borderRightWidth));
        }
        position = s.position === "fixed" || s.position === "absolute" ? s.position : "static";
      }
      return right > left ? { left, right } : null;
    }
    const pastEdge = (left: number, right: number) =>
      right > width + TOLERANCE
        ? `+${(right - width).toFixed(1)} px past the right edge`
        : left < -TOLERANCE
          ? `${(-left).toFixed(1)} px past the left edge`
          : null;

    const found: { el: Element; line: string }[] = [];
    for (const el of Array.from(document.body.querySelectorAll("*"))) {
      const style = getComputedStyle(el);
      if (style.display === "none" || style.visibility !== "visible") continue;
      const rect = el.getBoundingClientRect();
      if (rect.width === 0 && rect.height === 0) continue;
      if (visuallyHidden(el, style)) continue;

      // A scroll container (not a form field, whose text scrolls by design) that scrolls sideways.
      const field =
        el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement;
      if (!field && /auto|scroll/.test(style.overflowX) && el.scrollWidth > el.clientWidth + 1) {
        found.push({
          el,
          line: `${selectorOf(el)} scrolls sideways: content ${el.scrollWidth} px in ${el.clientWidth} px`,
        });
      }

      if (!pastEdge(rect.left, rect.right)) continue;
      const seen = visibleExtent(el.parentElement, style.position, rect.left, rect.right);
      const past = seen && pastEdge(seen.left, seen.right);
      if (past) {
        found.push({
          el,
          line: `${selectorOf(el)} [${Math.round(rect.left)}, ${Math.round(rect.right)}] w=${Math.round(rect.width)} ${past}`,
        });
      }
    }

    // Text is not an element: a word that does not fit spills out of its element's box
    // without widening it. Each text node's own extent counts, clipped like a box in its parent.
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const range = document.createRange();
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || !node.textContent?.trim() || /^(SCRIPT|STYLE|TEXTAREA|OPTION|TEMPLATE)$/.test(parent.tagName))
        continue;
      if (getComputedStyle(parent).visibility !== "visible") continue;
      range.selectNodeContents(node);
      const rects = Array.from(range.getClientRects()).filter((r) => r.width > 0 && r.height > 0);
      if (rects.length === 0) continue;
      const left = Math.min(...rects.map((r) => r.left));
      const right = Math.max(...rects.map((r) => r.right));
      const text = node.textContent.replace(/\s+/g, " ").trim();
      const quoted = `"${text.length > 40 ? `${text.slice(0, 40)}…` : text}"`;
      // Squeezed: the text spills out of its own (non-inline, unclipped) box, over what is next to it.
      const own = getComputedStyle(parent);
      if (!/^(inline|contents)$/.test(own.display) && own.overflowX === "visible") {
        const box = parent.getBoundingClientRect();
        const spill = Math.max(right - box.right, box.left - left);
        if (spill > 1)
          found.push({
            el: parent,
            line: `text ${quoted} spills ${spill.toFixed(1)} px out of ${selectorOf(parent).replace(/ ".*$/, "")} (w=${Math.round(box.width)})`,
          });
      }
      if (!pastEdge(left, right)) continue;
      const seen = visibleExtent(parent, "static", left, right);
      const past = seen && pastEdge(seen.left, seen.right);
      if (past) {
        found.push({
          el: parent,
          line: `text ${quoted} in ${selectorOf(parent).replace(/ ".*$/, "")} [${Math.round(left)}, ${Math.round(right)}] ${past}`,
        });
      }
    }

    // The innermost first (no offender inside them: where the cause usually is), then the
    // boxes around them, which only stick out because of what they hold.
    const isText = (f: { line: string }) => f.line.startsWith("text ");
    const innermost = (f: { el: Element; line: string }) =>
      isText(f) || !found.some((o) => o !== f && f.el.contains(o.el) && (o.el !== f.el || isText(o)));
    const offenders = [...found.filter(innermost), ...found.filter((f) => !innermost(f))].map((f) => f.line);
    return { width, scrollWidth, scrolls: scrollWidth > width, offenders };
  });
}
