/**
 * Issue 51: a page's island scripts fetched at once, not one import level at a time. The
 * browser learns of an island's module only when it parses the island, and of that module's
 * imports only once it has arrived: on a phone at 562 ms a request that is three or four round
 * trips before Today can be ticked. `withModulePreloads` adds to the page's head a
 * `<link rel="modulepreload">` for every module the islands that hydrate at once (`load`,
 * `idle`, `only`) and the page's own scripts import, statically, all the way down. Islands that
 * wait to be scrolled to (`visible`, `media`) and modules loaded on use (`import()`) are left out.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Each built module (`/_astro/x.js`) and the modules it imports statically. */
export type ImportGraph = Map<string, string[]>;

/** `import{a as b}from"./app.X.js"`, `import"./x.js"`, `export{…}from"./x.js"`; never `import("./x.js")`. */
const STATIC_IMPORT = /(?:\bfrom\s*|\bimport\s*)["'](\.\/[\w.-]+\.js)["']/g;

/** The static imports of every module in `assetsDir` (dist/client/_astro), keyed by URL path. */
export function importGraph(assetsDir: string, prefix = "/_astro/"): ImportGraph {
  const graph: ImportGraph = new Map();
  let names: string[];
  try {
    names = readdirSync(assetsDir).filter((name) => name.endsWith(".js"));
  } catch {
    return graph;
  }
  for (const name of names) {
    const text = readFileSync(join(assetsDir, name), "utf8");
    const imports = new Set<string>();
    for (const match of text.matchAll(STATIC_IMPORT)) imports.add(prefix + (match[1] as string).slice(2));
    graph.set(prefix + name, [...imports]);
  }
  return graph;
}

const ISLAND = /<astro-island\b[^>]*>/g;
const PAGE_SCRIPT = /<script\b[^>]*\btype="module"[^>]*\bsrc="([^"]+)"/g;
const attribute = (tag: string, name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];
/** The islands that load their code as soon as the page does. */
const AT_ONCE = new Set(["load", "idle", "only"]);

/** The modules `html` starts with and everything they import, in the order first met. */
export function modulesToPreload(html: string, graph: ImportGraph): string[] {
  const roots: string[] = [];
  for (const [tag] of html.matchAll(ISLAND)) {
    if (!AT_ONCE.has(attribute(tag, "client") ?? "")) continue;
    for (const name of ["component-url", "renderer-url"]) {
      const url = attribute(tag, name);
      if (url) roots.push(url);
    }
  }
  const linked = new Set<string>();
  for (const match of html.matchAll(PAGE_SCRIPT)) {
    roots.push(match[1] as string);
    linked.add(match[1] as string); // the page names it already
  }
  const order: string[] = [];
  const seen = new Set<string>();
  const visit = (url: string) => {
    if (seen.has(url) || !graph.has(url)) return;
    seen.add(url);
    order.push(url);
    for (const next of graph.get(url) ?? []) visit(next);
  };
  for (const root of roots) visit(root);
  return order.filter((url) => !linked.has(url));
}

/** `html` with a modulepreload link for each module its islands need at once, early in its head. */
export function withModulePreloads(html: string, graph: ImportGraph): string {
  if (graph.size === 0 || !html.includes("<astro-island")) return html;
  const urls = modulesToPreload(html, graph);
  if (urls.length === 0) return html;
  const links = urls.map((url) => `<link rel="modulepreload" href="${url}">`).join("");
  // Before the first stylesheet or style (inlined, the stylesheet is most of the head), else at its end.
  const head = html.indexOf("</head>");
  if (head === -1) return html;
  const styles = [html.indexOf("<style"), html.indexOf('<link rel="stylesheet"')].filter((i) => i !== -1 && i < head);
  const at = styles.length > 0 ? Math.min(...styles) : head;
  return html.slice(0, at) + links + html.slice(at);
}

/** An HTML page answered with its preloads added; any other answer as it is. */
export async function preloadModules(response: Response, graph: ImportGraph): Promise<Response> {
  const type = response.headers.get("content-type") ?? "";
  if (graph.size === 0 || response.status !== 200 || !type.startsWith("text/html") || !response.body) return response;
  const html = await response.text();
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(withModulePreloads(html, graph), { status: response.status, headers });
}
