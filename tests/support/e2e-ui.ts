/** Small UI helpers shared by the Playwright specs. */
import { expect, type Locator, type Page } from "@playwright/test";

/**
 * Waits for a new toast titled `title` (with `description`, when given) and checks that it
 * is the only toast visible. Each toast satisfies one call only: once matched, every toast
 * on the page is marked as seen, so two toasts with the same title in a row are two toasts.
 */
export async function expectToast(page: Page, title: string, description?: string): Promise<Locator> {
  let toast = page
    .locator('[data-sonner-toast]:not([data-qa-seen]):not([data-removed="true"])')
    .filter({ has: page.locator("[data-title]", { hasText: title }) });
  if (description !== undefined)
    toast = toast.filter({ has: page.locator("[data-description]", { hasText: description }) });
  await expect(toast).toHaveCount(1);
  await expect(toast).toBeVisible();
  await expect(toast.locator("[data-title]")).toHaveText(title);
  if (description !== undefined) await expect(toast.locator("[data-description]")).toHaveText(description);
  await expect(page.locator('[data-sonner-toast][data-visible="true"]:not([data-removed="true"])')).toHaveCount(1);
  await page.evaluate(() => {
    for (const el of document.querySelectorAll("[data-sonner-toast]")) el.setAttribute("data-qa-seen", "");
  });
  return toast;
}

/** The error toast of the spec: titled 'Error' with `message`. */
export const expectErrorToast = (page: Page, message: string, title = "Error") => expectToast(page, title, message);

/**
 * Waits until every Astro island on the page is hydrated (Astro removes the `ssr`
 * attribute once it is), so typing is seen by React rather than lost on server HTML. An
 * island loaded when scrolled to (`client:visible`, the dashboard's Insights) is waited for
 * by `scrolledHydrated` instead.
 */
export async function waitForHydration(page: Page): Promise<void> {
  await page.waitForFunction(() => document.querySelectorAll('astro-island[ssr]:not([client="visible"])').length === 0);
}

/** Scrolls `region` into view and waits until the `client:visible` island inside it is hydrated. */
export async function scrolledHydrated(region: Locator): Promise<void> {
  await region.scrollIntoViewIfNeeded();
  await expect(region.locator("xpath=ancestor::astro-island[1]")).not.toHaveAttribute("ssr");
}

/** page.goto, then waitForHydration; answers the navigation's response. */
export async function gotoHydrated(page: Page, url: string) {
  const response = await page.goto(url);
  await waitForHydration(page);
  return response;
}

/** An element's computed background colour. */
export const background = (l: Locator) => l.evaluate((el) => getComputedStyle(el).backgroundColor);

/** The History card legend's swatch for `label`. */
export const swatch = (page: Page, label: string) =>
  page
    .getByRole("list", { name: "Colour key" })
    .getByRole("listitem")
    .filter({ hasText: new RegExp(`^${label}$`) })
    .locator("span");
