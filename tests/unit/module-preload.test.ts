/**
 * Issue 51: a page's islands' modules are preloaded from its head, all the way down their static
 * imports, so a phone fetches them in one round trip instead of one per import level.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ImportGraph, importGraph, modulesToPreload, withModulePreloads } from "../../server/preload";

const graph: ImportGraph = new Map([
  ["/_astro/TodayCard.a.js", ["/_astro/app.b.js", "/_astro/dates.c.js"]],
  ["/_astro/client.d.js", ["/_astro/app.b.js"]],
  ["/_astro/app.b.js", []],
  ["/_astro/dates.c.js", ["/_astro/app.b.js"]],
  ["/_astro/Insights.e.js", ["/_astro/insights.f.js"]],
  ["/_astro/insights.f.js", []],
  ["/_astro/page.g.js", ["/_astro/push.h.js"]],
  ["/_astro/push.h.js", []],
]);

const island = (client: string, component: string) =>
  `<astro-island uid="x" component-url="${component}" component-export="default" renderer-url="/_astro/client.d.js" props="{&quot;a&quot;:[0,&quot;&gt;&quot;]}" ssr client="${client}" opts="{}"></astro-island>`;
const page = (body: string, head = "<style>body{}</style>") =>
  `<!DOCTYPE html><html><head><meta charset="utf-8">${head}</head><body>${body}</body></html>`;

describe("which modules a page preloads", () => {
  const rows: { what: string; body: string; want: string[] }[] = [
    {
      what: "an island that hydrates on load: its module, its renderer and their imports, once each",
      body: island("load", "/_astro/TodayCard.a.js"),
      want: ["/_astro/TodayCard.a.js", "/_astro/app.b.js", "/_astro/dates.c.js", "/_astro/client.d.js"],
    },
    {
      what: "idle and client-only islands load at once too",
      body: island("idle", "/_astro/TodayCard.a.js") + island("only", "/_astro/Insights.e.js"),
      want: [
        "/_astro/TodayCard.a.js",
        "/_astro/app.b.js",
        "/_astro/dates.c.js",
        "/_astro/client.d.js",
        "/_astro/Insights.e.js",
        "/_astro/insights.f.js",
      ],
    },
    {
      what: "an island that waits to be scrolled to is not preloaded",
      body: island("visible", "/_astro/Insights.e.js"),
      want: [],
    },
    {
      what: "an island waiting for a media query is not preloaded",
      body: island("media", "/_astro/Insights.e.js"),
      want: [],
    },
    {
      what: "a page script is named already; its imports are preloaded",
      body: `<script type="module" src="/_astro/page.g.js"></script>`,
      want: ["/_astro/push.h.js"],
    },
    {
      what: "a module the build does not have is skipped",
      body: island("load", "/_astro/Gone.z.js"),
      want: ["/_astro/client.d.js", "/_astro/app.b.js"],
    },
    { what: "a page without islands", body: "<p>Hello</p>", want: [] },
  ];
  for (const row of rows) {
    test(row.what, () => {
      expect(modulesToPreload(page(row.body), graph)).toEqual(row.want);
    });
  }
});

describe("where the links go", () => {
  const links = '<link rel="modulepreload" href="/_astro/TodayCard.a.js">';
  test("before the inlined stylesheet, so the browser asks for them first", () => {
    const html = withModulePreloads(page(island("load", "/_astro/TodayCard.a.js")), graph);
    expect(html.indexOf(links)).toBeGreaterThan(html.indexOf('<meta charset="utf-8">'));
    expect(html.indexOf(links)).toBeLessThan(html.indexOf("<style>"));
  });
  test("before a linked stylesheet", () => {
    const html = withModulePreloads(
      page(island("load", "/_astro/TodayCard.a.js"), '<link rel="stylesheet" href="/_astro/x.css">'),
      graph,
    );
    expect(html.indexOf(links)).toBeLessThan(html.indexOf('<link rel="stylesheet"'));
  });
  test("at the end of a head without styles", () => {
    const html = withModulePreloads(page(island("load", "/_astro/TodayCard.a.js"), ""), graph);
    expect(html).toContain(`${'<link rel="modulepreload" href="/_astro/client.d.js">'}</head>`);
  });
  test("a page with nothing to preload is returned as it was", () => {
    const html = page(island("visible", "/_astro/Insights.e.js"));
    expect(withModulePreloads(html, graph)).toBe(html);
  });
});

describe("the import graph read from built files", () => {
  test("static imports and re-exports count; import() does not", () => {
    const dir = mkdtempSync(join(tmpdir(), "preload-"));
    writeFileSync(
      join(dir, "Card.a.js"),
      'import{t as e}from"./app.b.js";import"./side.c.js";export{x}from"./dates.d.js";const L=()=>import("./Dialog.e.js");',
    );
    writeFileSync(join(dir, "app.b.js"), "export const t=1;");
    writeFileSync(join(dir, "style.css"), "a{}");
    const read = importGraph(dir);
    expect(read.get("/_astro/Card.a.js")).toEqual(["/_astro/app.b.js", "/_astro/side.c.js", "/_astro/dates.d.js"]);
    expect(read.get("/_astro/app.b.js")).toEqual([]);
    expect(read.has("/_astro/style.css")).toBe(false);
  });
  test("no build: an empty graph, and pages are left as they are", () => {
    const read = importGraph("/nonexistent/_astro");
    expect(read.size).toBe(0);
    const html = page(island("load", "/_astro/TodayCard.a.js"));
    expect(withModulePreloads(html, read)).toBe(html);
  });
});
