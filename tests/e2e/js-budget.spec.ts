/**
 * Issue 38: the dashboard's JavaScript stays within its budget, 110 KB gzipped: every script a
 * signed-in user's /dashboard loads, as the server sends it (gzip), once the page is idle.
 * Chunks loaded on use (a dialog opened, the offline queue written) are not counted.
 */
import { gzipSync } from "node:zlib";
import { expect, test } from "@playwright/test";
import { gotoHydrated } from "../support/e2e-ui";
import { addSupplements, signUpWithApi } from "../support/e2e-users";

const BUDGET_BYTES = 110 * 1024;

test("the dashboard's JavaScript, gzipped as sent, stays within 110 KB", async ({ page, baseURL }) => {
  const user = await signUpWithApi(page.request, baseURL as string);
  await addSupplements(page, baseURL as string, [{ name: "Vitamin D" }, { name: "Magnesium" }, { name: "Omega-3" }]);
  const scripts = new Map<string, number>();
  // Every script's size, read as it arrives; all of them awaited before the sum (none missed).
  const reads: Promise<void>[] = [];
  page.on("response", (response) => {
    if (response.request().resourceType() !== "script") return;
    const read = async () => {
      const body = await response.body();
      const encoding = (await response.allHeaders())["content-encoding"];
      // The bytes on the wire: the body as received is decoded, so gzip it as the server does.
      scripts.set(response.url(), encoding === "gzip" ? gzipSync(body, { level: 9 }).byteLength : body.byteLength);
    };
    reads.push(read());
  });
  await gotoHydrated(page, "/dashboard");
  await page.waitForLoadState("networkidle");
  await Promise.all(reads);
  const total = [...scripts.values()].reduce((sum, n) => sum + n, 0);
  const list = [...scripts].map(([url, n]) => `${new URL(url).pathname} ${(n / 1024).toFixed(1)} KB`).join("\n");
  console.log(`dashboard JavaScript for ${user.email}: ${(total / 1024).toFixed(1)} KB gzipped\n${list}`);
  expect(total, list).toBeLessThanOrEqual(BUDGET_BYTES);
});

test("every script of the dashboard's first load is asked for from its head (one round trip, not one per import level)", async ({
  page,
  baseURL,
}) => {
  await signUpWithApi(page.request, baseURL as string);
  await addSupplements(page, baseURL as string, [{ name: "Vitamin D" }]);
  const html = await (await page.request.get("/dashboard")).text();
  const head = html.slice(0, html.indexOf("</head>"));
  const named = new Set(
    [
      ...head.matchAll(/<link rel="modulepreload" href="([^"]+)"/g),
      ...html.matchAll(/<script type="module" src="([^"]+)"/g),
    ].map((m) => m[1]),
  );
  const loaded: string[] = [];
  page.on("request", (request) => {
    if (request.resourceType() === "script") loaded.push(new URL(request.url()).pathname);
  });
  await gotoHydrated(page, "/dashboard");
  await page.waitForLoadState("networkidle");
  expect(loaded.length).toBeGreaterThan(5);
  expect(loaded.filter((url) => !named.has(url))).toEqual([]);
  // No stylesheet to wait for before the first paint: it is in the page.
  expect(await page.locator('link[rel="stylesheet"]').count()).toBe(0);
});
