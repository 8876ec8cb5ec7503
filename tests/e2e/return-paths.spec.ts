/**
 * The review's open redirect, in Chromium: signing in through the form after a link to
 * `/api/login?redirectTo=<hostile>` must end on this site (the browser strips tabs and
 * newlines, so `/%09/evil.com` once became `//evil.com`); a real path survives.
 */
import { expect, request as playwrightRequest, test } from "@playwright/test";
import { waitForHydration } from "../support/e2e-ui";
import { signUpWithApi } from "../support/e2e-users";

const HOSTILE = ["/%09/evil.com", "/%0a/evil.com", "/\\evil.com", "//evil.com", "/%2F/evil.com", "https://evil.com/"];

test.describe("return paths in the browser", () => {
  for (const target of [...HOSTILE, "/subscribe?from=link"]) {
    test(`sign in after /api/login?redirectTo=${target}`, async ({ page, baseURL }) => {
      // The account is made outside the page, so the page starts signed out.
      const other = await playwrightRequest.newContext({ baseURL });
      const user = await signUpWithApi(other, baseURL as string);
      await other.dispose();
      const left: string[] = [];
      page.on("request", (r) => {
        if (new URL(r.url()).origin !== new URL(baseURL as string).origin && r.isNavigationRequest())
          left.push(r.url());
      });
      // As the review sent it: the raw value in the query string (the server decodes %09 to a tab).
      await page.goto(`/api/login?redirectTo=${target}`);
      await expect(page).toHaveURL(/\/auth\/sign-in/);
      await waitForHydration(page);
      await page.getByLabel("Email", { exact: true }).fill(user.email);
      await page.getByLabel("Password", { exact: true }).fill(user.password);
      await page.getByRole("button", { name: "Log In", exact: true }).click();
      const expected = target.startsWith("/subscribe") ? "/subscribe?from=link" : "/";
      await expect.poll(() => new URL(page.url()).pathname + new URL(page.url()).search).toBe(expected);
      expect(new URL(page.url()).origin).toBe(new URL(baseURL as string).origin);
      expect(left).toEqual([]);
    });
  }
});
