/**
 * The JavaScript a page ships, measured in a real browser: Playwright drives Debian's
 * Chromium, loads the page, waits until the network is idle (islands hydrated), and
 * sums every script response (by resource type or JavaScript content type) plus the
 * inline <script> elements. Raw bytes are the decoded bodies; gzip is each body
 * gzipped at level 9 by us; "served" is the encoded body size as sent by the server.
 */
import { chromium } from "@playwright/test";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
  "--disable-sync",
];

export interface PageJs {
  name: string;
  url: string;
  /** Where the page ended up (a redirect to sign-in would show here). */
  finalUrl: string;
  status: number;
  files: { url: string; raw: number; gzip: number; served: number }[];
  inline: { count: number; raw: number; gzip: number };
  /** raw and gzip: files and inline scripts; served: the files' encoded bodies as sent. */
  total: { raw: number; gzip: number; served: number };
}

export interface PageToMeasure {
  name: string;
  path: string;
  /** Cookies to set first (name → value), for a signed-in page. */
  cookies?: Map<string, string>;
}

const gz = (data: Uint8Array | string) =>
  Bun.gzipSync(typeof data === "string" ? new TextEncoder().encode(data) : new Uint8Array(data), { level: 9 })
    .byteLength;

export async function measureJs(origin: string, pages: PageToMeasure[]): Promise<PageJs[]> {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const results: PageJs[] = [];
    for (const page of pages) {
      const context = await browser.newContext({ baseURL: origin });
      if (page.cookies) {
        await context.addCookies(
          [...page.cookies].map(([name, value]) => ({
            name,
            value,
            // domain + path, not url: Chromium refuses a Secure cookie set for an http:// URL
            // through the protocol, but sends one to 127.0.0.1 (a trustworthy origin).
            domain: new URL(origin).hostname,
            path: "/",
            httpOnly: true,
            secure: name.startsWith("__Secure-") || name.startsWith("__Host-"),
            sameSite: "Lax" as const,
          })),
        );
      }
      const tab = await context.newPage();
      const pending: Promise<PageJs["files"][number] | undefined>[] = [];
      tab.on("response", (response) => {
        const type = response.headers()["content-type"] ?? "";
        const isScript = response.request().resourceType() === "script" || /javascript|ecmascript/.test(type);
        if (!isScript || response.status() >= 300) return;
        pending.push(
          (async () => {
            const body = await response.body();
            const sizes = await response.request().sizes();
            return { url: response.url(), raw: body.byteLength, gzip: gz(body), served: sizes.responseBodySize };
          })().catch(() => undefined),
        );
      });
      const response = await tab.goto(page.path, { waitUntil: "networkidle" });
      // Islands hydrate after load; give late dynamic imports a moment, then settle again.
      await tab.waitForTimeout(500);
      await tab.waitForLoadState("networkidle");
      const inline = await tab.$$eval("script:not([src])", (scripts) =>
        scripts
          .filter((s) => {
            const t = (s.getAttribute("type") ?? "").toLowerCase();
            return t === "" || t === "module" || t === "text/javascript" || t === "application/javascript";
          })
          .map((s) => s.textContent ?? ""),
      );
      const files = (await Promise.all(pending)).filter((f): f is PageJs["files"][number] => Boolean(f));
      const inlineRaw = inline.reduce((sum, text) => sum + new TextEncoder().encode(text).byteLength, 0);
      const inlineGzip = inline.reduce((sum, text) => sum + (text.length ? gz(text) : 0), 0);
      results.push({
        name: page.name,
        url: new URL(page.path, origin).toString(),
        finalUrl: tab.url(),
        status: response?.status() ?? 0,
        files,
        inline: { count: inline.length, raw: inlineRaw, gzip: inlineGzip },
        total: {
          raw: files.reduce((s, f) => s + f.raw, 0) + inlineRaw,
          gzip: files.reduce((s, f) => s + f.gzip, 0) + inlineGzip,
          served: files.reduce((s, f) => s + f.served, 0),
        },
      });
      await context.close();
    }
    return results;
  } finally {
    await browser.close();
  }
}
