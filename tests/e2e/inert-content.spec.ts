/**
 * Stored content is inert, in Chromium: markup and script in every free-text field and
 * every URL (the sign-up name, the bio, the eight social links, a premium user's
 * supplement name, frequency, notes and affiliate link), stored through the real API,
 * then shown on every page that displays them: the dashboard, the share preview, the
 * edit dialog, Edit Profile and the public profile. Nothing may run and nothing may
 * become markup:
 * - no payload script runs (it would set window.__xss) and no dialog opens;
 * - no element the payloads carry exists in the DOM ([data-xss]): escaping works even
 *   where the CSP would have blocked a script anyway;
 * - no element has an inline event-handler attribute, and no link is javascript:/data:;
 * - the payloads are shown as text (so the test looked where they are).
 */
import { expect, type Page, test } from "@playwright/test";
import { type ControlledApp, startControlledApp } from "../support/e2e-app";
import { gotoHydrated } from "../support/e2e-ui";
import { addSupplements, apiCall, type E2eUser, signUpWithApi } from "../support/e2e-users";

const SHORT = `"'><img src=x data-xss onerror=__xss=1><script>__xss=2</script>`; // ≤ 100: name, frequency
const LONG = [
  SHORT,
  `<svg data-xss onload=__xss=3></svg>`,
  `<iframe data-xss srcdoc="<script>parent.__xss=4</script>"></iframe>`,
  `<a data-xss href="javascript:__xss=5">click</a>`,
  `{{constructor.constructor('__xss=6')()}}`,
  `</textarea></title></style><script>__xss=7</script>`,
].join("\n");
/** Valid http(s) URLs (the API refuses anything else) that break out of an attribute if not escaped. */
const URLS = [
  `https://example.com/"><img src=x data-xss onerror=__xss=11>`,
  `https://example.com/x" onmouseover="__xss=12" data-xss="`,
  `https://example.com/x' onfocus='__xss=13' autofocus data-xss='`,
  `http://example.com/?q=</script><script>__xss=14</script>`,
  `https://example.com/#"><svg data-xss onload=__xss=15>`,
  `https://example.com/<b data-xss>bold</b>`,
  `http://example.com/'-alert(16)-'`,
  `https://example.com/javascript:__xss=17`,
];
const SOCIAL = [
  "instagramUrl",
  "twitterUrl",
  "facebookUrl",
  "youtubeUrl",
  "tiktokUrl",
  "linkedinUrl",
  "etsyUrl",
  "websiteUrl",
] as const;

let app: ControlledApp;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  app = await startControlledApp();
});
test.afterAll(async () => {
  await app?.stop();
});

async function watch(page: Page): Promise<string[]> {
  const dialogs: string[] = [];
  page.on("dialog", async (d) => {
    dialogs.push(`${d.type()}: ${d.message()}`);
    await d.dismiss();
  });
  return dialogs;
}

/** What must hold on any page showing the payloads. */
async function expectInert(page: Page, dialogs: string[], where: string) {
  // A handler of an image or frame (onerror/onload) runs before the window's load event,
  // which waits for every one of them to load or fail.
  await page.waitForLoadState("load");
  await page.waitForFunction(() => Array.from(document.images).every((img) => img.complete));
  const state = await page.evaluate(() => {
    const handlerAttributes: string[] = [];
    for (const el of Array.from(document.querySelectorAll("*"))) {
      for (const attr of Array.from(el.attributes)) {
        if (/^on/i.test(attr.name)) handlerAttributes.push(`${el.tagName.toLowerCase()}[${attr.name}]`);
      }
    }
    const badLinks = Array.from(document.querySelectorAll("a[href], iframe[src], img[src], form[action]"))
      .map((el) => el.getAttribute("href") ?? el.getAttribute("src") ?? el.getAttribute("action") ?? "")
      .filter((v) => /^\s*(javascript|data|vbscript):/i.test(v));
    return {
      xss: (window as unknown as { __xss?: unknown }).__xss,
      injected: document.querySelectorAll("[data-xss]").length,
      handlerAttributes,
      badLinks,
    };
  });
  expect(state.xss, `${where}: a payload script ran`).toBeUndefined();
  expect(dialogs, `${where}: a dialog opened`).toEqual([]);
  expect(state.injected, `${where}: payload markup became elements`).toBe(0);
  expect(state.handlerAttributes, `${where}: inline event handlers`).toEqual([]);
  expect(state.badLinks, `${where}: script links`).toEqual([]);
}

test("markup and script in every stored field and URL never run, never become markup, on every page", async ({
  page,
}) => {
  test.setTimeout(90_000);
  const dialogs = await watch(page);
  const user: E2eUser = await signUpWithApi(page.request, app.url, {
    name: `<img src=x data-xss onerror=__xss=20> Mallory`,
  });
  await app.setPremium(user.email, true);
  const profile: Record<string, string> = { bio: LONG.slice(0, 500) };
  SOCIAL.forEach((key, i) => {
    profile[key] = URLS[i % URLS.length] as string;
  });
  await apiCall(page, app.url, "PUT", "/api/profile", profile);
  const names = [SHORT, `<b data-xss>${"x".repeat(10)}</b>`, `<script>__xss=30</script>`];
  await addSupplements(
    page,
    app.url,
    names.map((name, i) => ({
      name,
      frequency: SHORT,
      notes: LONG,
      affiliateLink: URLS[i] as string,
    })),
  );
  // The API stored them verbatim (they are text, and valid): the pages must keep them text.
  const stored = await apiCall<{ name: string; notes: string; affiliateLink: string }[]>(
    page,
    app.url,
    "GET",
    "/api/supplements",
  );
  expect(stored.map((s) => s.name)).toEqual(names);
  expect(stored[0]?.notes).toBe(LONG);
  expect(stored[0]?.affiliateLink).toBe(URLS[0]);

  // The dashboard.
  await gotoHydrated(page, `${app.url}/`);
  await expect(page.getByText(SHORT, { exact: false }).first()).toBeVisible();
  await expect(page.getByText("<script>__xss=30</script>").first()).toBeVisible();
  await expectInert(page, dialogs, "dashboard");

  // The share preview.
  await page.getByRole("button", { name: "Share Profile" }).click();
  await expect(page.getByRole("dialog")).toBeVisible();
  await expect(page.getByRole("dialog").getByText("<script>__xss=30</script>").first()).toBeVisible();
  await expectInert(page, dialogs, "share preview");
  await page.keyboard.press("Escape");

  // The edit dialog of a supplement (name, frequency, notes, link in form fields).
  await page.getByRole("button", { name: `Actions for ${SHORT}` }).click();
  await page.getByRole("menuitem", { name: "Edit" }).click();
  const editDialog = page.getByRole("dialog");
  await expect(editDialog.getByLabel("Name")).toHaveValue(SHORT);
  await expectInert(page, dialogs, "edit dialog");
  await page.keyboard.press("Escape");

  // Edit Profile (bio and the eight URLs in form fields).
  await gotoHydrated(page, `${app.url}/profile/edit`);
  await expect(page.locator("textarea").first()).toHaveValue(LONG.slice(0, 500));
  await expectInert(page, dialogs, "edit profile");

  // The public profile, as a visitor sees it (no session), and the profile API as JSON.
  const visitor = await page.context().browser()?.newContext();
  if (!visitor) throw new Error("no browser");
  const publicPage = await visitor.newPage();
  const visitorDialogs = await watch(publicPage);
  const res = await publicPage.goto(`${app.url}/${user.username}`);
  expect(res?.status()).toBe(200);
  await expect(publicPage.getByText(SHORT).first()).toBeVisible();
  await expect(publicPage.getByText("<script>__xss=30</script>").first()).toBeVisible();
  // Social links are shown as links to the stored URL, never as markup.
  await expectInert(publicPage, visitorDialogs, "public profile");
  // Hover and focus every link, where an attribute break-out would fire.
  for (const link of await publicPage.locator("a").all()) {
    await link.hover().catch(() => {});
    await link.focus().catch(() => {});
  }
  await expectInert(publicPage, visitorDialogs, "public profile after hovering every link");
  const json = await publicPage.goto(`${app.url}/api/profile/${user.username}`);
  expect(json?.headers()["content-type"]).toContain("application/json");
  expect(json?.headers()["x-content-type-options"]).toBe("nosniff");
  await expectInert(publicPage, visitorDialogs, "profile JSON opened as a page");
  await visitor.close();
});
