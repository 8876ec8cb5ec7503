/**
 * Issue 13, phones: every page and every open dialog or menu, at 320, 360, 390, 768 and
 * 1280 px, with the longest content the app accepts (50-character usernames without a
 * break, a 500-character bio, 100-character supplement names and frequencies, 1000
 * characters of notes, all eight social links). A state fails when the page scrolls
 * sideways (`document.documentElement.scrollWidth > innerWidth`) or when any visible element
 * passes the viewport's edge (tests/e2e/support.ts: horizontalOverflow); the message lists
 * each state, width and offending element with how far it sticks out.
 *
 * Each state is loaded afresh at each width (what a phone gets), not resized after load.
 * RESPONSIVE_SCREENSHOTS=<folder> keeps a full-page screenshot of each state and width.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Browser, type ConsoleMessage, expect, type Page, test } from "@playwright/test";
import { PRODUCT_NAME, SOCIAL_LINKS } from "../../src/lib/constants";
import { gotoHydrated, scrolledHydrated } from "../support/e2e-ui";
import { addSupplements, apiCall, type SupplementSeed, signUpWithApi } from "../support/e2e-users";
import { becomePremium, routeStripe, startServerWithoutStripe } from "./stripe-double";
import { expectNoA11yViolations, horizontalOverflow } from "./support";

/** Width → a phone's, a tablet's or a laptop's height. */
const VIEWPORTS = [
  { width: 320, height: 568 },
  { width: 360, height: 740 },
  { width: 390, height: 844 },
  { width: 768, height: 1024 },
  { width: 1280, height: 800 },
];

const SCREENSHOTS = process.env.RESPONSIVE_SCREENSHOTS;

/** `base` repeated and cut to exactly `length` characters. */
const fill = (base: string, length: number) => base.repeat(Math.ceil(length / base.length)).slice(0, length);
const randomLetters = (n: number, letters = "abcdefghijklmnopqrstuvwxyz") =>
  Array.from(crypto.getRandomValues(new Uint8Array(n)), (b) => letters[b % letters.length]).join("");

/**
 * 50-character usernames with no place to break: one letter repeated, a word-like one,
 * and the widest capital (each ends in random letters so that no two tests share one).
 */
const USERNAMES = {
  letters: () => `${"a".repeat(44)}${randomLetters(6)}`,
  word: () => `Pneumonoultramicroscopicsilicovolcanoconiosis${randomLetters(5)}`,
  // 20 random letters of two: 2^20 names, so the sweep's dozen wide users never collide (6 gave 64, and a 409).
  wide: () => `${"W".repeat(30)}${randomLetters(20, "MW")}`,
} as const;
type UsernameKind = keyof typeof USERNAMES;

/** 500 characters: words, line breaks and a 120-character token without a break. */
const BIO = fill(
  `Endurance runner and coffee lover.\nTracking my stack since 2019: ${"Supercalifragilisticexpialidocious".repeat(4).slice(0, 120)} and a long sentence to see it wrap. `,
  500,
);
const UNBROKEN_NAME = fill("Pyrroloquinolinequinone", 100);
const WORDS_NAME = fill(
  "Vitamin D3 with K2 (MK-7) and magnesium glycinate, high absorption formula, extra strength ",
  100,
);
const UNBROKEN_FREQUENCY = fill("twice-daily-with-breakfast-and-dinner-", 100);
const WORDS_FREQUENCY = fill("two capsules in the morning with food and one more in the evening before bed ", 100);
const NOTES = fill(`Take with food. ${"Bioavailability".repeat(14)} then wait thirty minutes before coffee. `, 1000);
const AFFILIATE = `https://shop.example.com/products/${"a".repeat(200)}?ref=${"b".repeat(100)}`;

const SUPPLEMENTS: SupplementSeed[] = [
  { name: UNBROKEN_NAME, quantityType: "Tablespoon(s)", frequency: UNBROKEN_FREQUENCY },
  { name: WORDS_NAME, quantityType: "Gummy(ies)", frequency: WORDS_FREQUENCY },
  { name: "Zinc", quantityType: "Lozenge", frequency: "as needed" },
];
const PREMIUM_SUPPLEMENTS: SupplementSeed[] = SUPPLEMENTS.map((s) => ({
  ...s,
  notes: NOTES,
  affiliateLink: AFFILIATE,
}));
/** All eight links, each a long URL. */
const SOCIALS = Object.fromEntries(
  SOCIAL_LINKS.map((link) => [link.field, `https://${link.field.replace("Url", "")}.example.com/${"x".repeat(150)}`]),
);

interface Seeded {
  username: string;
}

/** Signs the page's browser up with a 50-character username, the long bio, all links and supplements. */
async function seedUser(
  page: Page,
  base: string,
  options: { premium?: boolean; username?: UsernameKind; supplements?: boolean } = {},
): Promise<Seeded> {
  const username = USERNAMES[options.username ?? "word"]();
  expect(username).toHaveLength(50);
  await signUpWithApi(page.request, base, { username });
  await apiCall(page, base, "PUT", "/api/profile", { bio: BIO, ...SOCIALS });
  if (options.premium) await becomePremium(page, base);
  if (options.supplements !== false)
    await addSupplements(page, base, options.premium ? PREMIUM_SUPPLEMENTS : SUPPLEMENTS);
  return { username };
}

/**
 * Loads the state at every width (`open` navigates and opens what is to be seen) and
 * fails with every overflow found, all widths at once (softly: the test goes on to its
 * next state and fails at its end).
 */
async function sweep(page: Page, state: string, open: (page: Page) => Promise<void>): Promise<void> {
  const failures: string[] = [];
  const consoleErrors = watchConsole(page);
  for (const viewport of VIEWPORTS) {
    await page.setViewportSize(viewport);
    await open(page);
    const result = await horizontalOverflow(page);
    if (SCREENSHOTS) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      const file = `${state.replace(/[^a-z0-9]+/gi, "-").toLowerCase()}-${viewport.width}.png`;
      await page.screenshot({ path: join(SCREENSHOTS, file), fullPage: true });
    }
    if (!result.scrolls && result.offenders.length === 0) continue;
    const lines = [
      `${state} @ ${viewport.width} px: ${result.scrolls ? `scrollWidth ${result.scrollWidth} > innerWidth ${result.width}` : "no sideways scroll"}, ${result.offenders.length} element(s) past the edge`,
      ...result.offenders.slice(0, 8).map((o) => `    ${o}`),
    ];
    if (result.offenders.length > 8) lines.push(`    … and ${result.offenders.length - 8} more`);
    failures.push(lines.join("\n"));
  }
  // Soft: a test with several states reports them all.
  expect.soft(failures, `overflow:\n${failures.join("\n")}`).toEqual([]);
  expect.soft(consoleErrors.stop(), `browser console errors in ${state}`).toEqual([]);
}

/**
 * Issue 38: every error the page writes to the browser's console (a hydration mismatch, an
 * uncaught exception, a failed request) while the sweep runs. The one expected line is a page
 * that answers 404 on purpose (the 404 and Profile Not Found screens): the document itself.
 */
function watchConsole(page: Page): { stop: () => string[] } {
  const errors: string[] = [];
  const onConsole = (message: ConsoleMessage) => {
    if (message.type() !== "error") return;
    const expected404 =
      message.text().includes("status of 404") && message.location().url.split("#")[0] === page.url().split("#")[0];
    if (!expected404) errors.push(`${page.url()}: ${message.text()} (${message.location().url})`);
  };
  const onError = (error: Error) => errors.push(`${page.url()}: uncaught ${error.message}`);
  page.on("console", onConsole);
  page.on("pageerror", onError);
  return {
    stop: () => {
      page.off("console", onConsole);
      page.off("pageerror", onError);
      return errors;
    },
  };
}

const dialog = (page: Page, name: string) => page.getByRole("dialog", { name });

async function openDialog(page: Page, button: string, title: string) {
  await page.getByRole("button", { name: button, exact: true }).click();
  await expect(dialog(page, title)).toBeVisible();
}

async function openRowMenu(page: Page, name: string) {
  await page.getByRole("button", { name: `Actions for ${name}` }).click();
  await expect(page.getByRole("menu", { name: `Actions for ${name}` })).toBeVisible();
}

/** A fresh signed-out browser on the same server. */
async function signedOut(browser: Browser, baseURL: string, run: (page: Page) => Promise<void>) {
  const context = await browser.newContext({ baseURL });
  try {
    await run(await context.newPage());
  } finally {
    await context.close();
  }
}

test.describe("signed-out pages", () => {
  const pages: [string, string][] = [
    ["landing", "/"],
    ["404", "/no/such/page"],
    ["sign-in", "/auth/sign-in"],
    ["sign-up", "/auth/sign-up"],
    ["forgot-password", "/auth/forgot-password"],
    ["reset-password (invalid link)", "/auth/reset-password"],
    ["reset-password (form)", "/auth/reset-password?token=some-token"],
    ["privacy", "/privacy"],
    ["terms", "/terms"],
  ];
  for (const [state, path] of pages) {
    test(state, async ({ browser, baseURL }) => {
      await signedOut(browser, baseURL as string, (page) =>
        sweep(page, state, async (p) => {
          await gotoHydrated(p, path);
          await expect(p.getByRole("heading", { level: 1 }).first()).toBeVisible();
        }),
      );
    });
  }

  test("sign-up with every field's error shown", async ({ browser, baseURL }) => {
    await signedOut(browser, baseURL as string, (page) =>
      sweep(page, "sign-up errors", async (p) => {
        await gotoHydrated(p, "/auth/sign-up");
        await p.getByLabel("Email").fill(`${"first.middle.last.name".repeat(3)}@not-an-address`);
        await p.getByRole("button", { name: "Create Account" }).click();
        await expect(p.locator(".field-error").first()).toBeVisible();
      }),
    );
  });

  test("Profile Not Found for a 50-character name", async ({ browser, baseURL }) => {
    const name = USERNAMES.wide();
    await signedOut(browser, baseURL as string, (page) =>
      sweep(page, "profile not found", async (p) => {
        expect((await p.goto(`/${name}`))?.status()).toBe(404);
        await expect(p.getByRole("heading", { name: "Profile Not Found" })).toBeVisible();
      }),
    );
  });
});

test.describe("profile setup (signed in, no username yet)", () => {
  test("with a long e-mail address, and a 60-character username typed", async ({ page, baseURL }) => {
    const base = baseURL as string;
    const email = `${"firstname.middlename.lastname"}.${randomLetters(8)}.supplements@example-longdomain.com`;
    const res = await page.request.post(`${base}/api/auth/sign-up/email`, {
      data: { name: "Long Email", email, password: "correct horse battery" },
      headers: { Origin: new URL(base).origin },
    });
    expect(res.status(), await res.text()).toBe(200);
    await sweep(page, "profile setup", async (p) => {
      await gotoHydrated(p, "/");
      await expect(p.getByRole("heading", { name: `Welcome to ${PRODUCT_NAME}` })).toBeVisible();
      await expect(p.getByText(email)).toBeVisible();
    });
    await sweep(page, "profile setup, long username typed", async (p) => {
      await gotoHydrated(p, "/");
      await p.getByLabel("Username").fill("W".repeat(60));
      await p.getByLabel("Bio").fill(BIO);
      await expect(p.getByText(`/${"W".repeat(60)}`)).toBeVisible();
    });
  });
});

for (const plan of ["free", "premium"] as const) {
  const premium = plan === "premium";
  test.describe(`signed in, ${plan}`, () => {
    const kinds: UsernameKind[] = premium ? ["word"] : ["letters", "word", "wide"];
    for (const kind of kinds) {
      test(`dashboard (${kind} username)`, async ({ page, baseURL }) => {
        test.slow();
        await seedUser(page, baseURL as string, { premium, username: kind });
        await sweep(page, `dashboard ${plan} ${kind}`, async (p) => {
          await gotoHydrated(p, "/");
          await expect(p.getByTestId("supplement-row")).toHaveCount(3);
          // Issue 14's Insights card, loaded (it hydrates when scrolled to), with its daily table open.
          await scrolledHydrated(p.getByRole("region", { name: "Insights" }));
          await expect(p.getByTestId("insights-views")).toBeVisible();
          if (premium) await expect(p.getByTestId("row-clicks")).toHaveCount(3);
          await p.getByText("Daily numbers").click();
        });
      });
    }

    test("dashboard with no supplements", async ({ page, baseURL }) => {
      await seedUser(page, baseURL as string, { premium, supplements: false });
      await sweep(page, `dashboard ${plan} empty`, async (p) => {
        await gotoHydrated(p, "/");
        await expect(p.getByText("No supplements added yet")).toBeVisible();
      });
    });

    const dashboard = async (p: Page) => {
      await gotoHydrated(p, "/");
      await expect(p.getByTestId("supplement-row")).toHaveCount(3);
    };
    const overlays: [string, (p: Page) => Promise<void>][] = [
      ["Add Supplement", (p) => openDialog(p, "Add Item", "Add New Supplement")],
      [
        "Add Supplement with errors",
        async (p) => {
          await openDialog(p, "Add Item", "Add New Supplement");
          if (premium) await dialog(p, "Add New Supplement").getByLabel("Affiliate Link").fill("not a link");
          await p.getByRole("button", { name: "Add Supplement" }).click();
          await expect(dialog(p, "Add New Supplement").locator(".field-error").first()).toBeVisible();
        },
      ],
      [
        "Edit Supplement",
        async (p) => {
          await openRowMenu(p, UNBROKEN_NAME);
          await p.getByRole("menuitem", { name: "Edit" }).click();
          await expect(dialog(p, "Edit Supplement").getByLabel("Name")).toHaveValue(UNBROKEN_NAME);
        },
      ],
      [
        "Share (Public Profile Preview)",
        async (p) => {
          await openDialog(p, "Share Profile", "Public Profile Preview");
          await expect(dialog(p, "Public Profile Preview").getByText("Zinc")).toBeVisible();
        },
      ],
      [
        "avatar menu",
        async (p) => {
          await p.getByRole("button", { name: "Account menu" }).click();
          await expect(p.getByRole("menu", { name: "Account menu" })).toBeVisible();
        },
      ],
      ["a supplement's actions menu", (p) => openRowMenu(p, WORDS_NAME)],
      [
        "the 'Supplement deleted' toast with Undo",
        async (p) => {
          // A supplement of its own for each width: the three the sweep counts stay.
          await addSupplements(p, new URL(p.url()).origin, [{ name: "Deleted at once" }]);
          await gotoHydrated(p, "/");
          await openRowMenu(p, "Deleted at once");
          await p.getByRole("menuitem", { name: "Delete" }).click();
          await expect(p.locator("[data-sonner-toast]").getByRole("button", { name: "Undo" })).toBeVisible();
          await expectNoA11yViolations(p);
        },
      ],
    ];
    for (const [overlay, open] of overlays) {
      test(`dashboard with ${overlay} open`, async ({ page, baseURL }) => {
        await seedUser(page, baseURL as string, { premium });
        await sweep(page, `${plan} ${overlay}`, async (p) => {
          await dashboard(p);
          await open(p);
        });
      });
    }

    test("Edit Profile", async ({ page, baseURL }) => {
      await seedUser(page, baseURL as string, { premium });
      await sweep(page, `${plan} profile edit`, async (p) => {
        await gotoHydrated(p, "/profile/edit");
        await expect(p.getByRole("heading", { name: "Edit Profile" })).toBeVisible();
      });
      if (premium) {
        await sweep(page, "premium profile edit, Cancel Premium? open", async (p) => {
          await gotoHydrated(p, "/profile/edit");
          await p.getByRole("button", { name: "Cancel Subscription" }).click();
          await expect(dialog(p, "Cancel Premium?")).toBeVisible();
        });
      }
    });

    test("settings (issue 15)", async ({ page, baseURL }) => {
      test.slow(); // two states at five widths
      await seedUser(page, baseURL as string, { premium, supplements: false, username: premium ? "word" : "wide" });
      await sweep(page, `${plan} settings`, async (p) => {
        await gotoHydrated(p, "/settings");
        await expect(p.getByRole("heading", { level: 1, name: "Settings" })).toBeVisible();
        await expect(p.getByText("This device", { exact: true })).toBeVisible();
      });
      await sweep(page, `${plan} settings, delete ready and errors shown`, async (p) => {
        await gotoHydrated(p, "/settings");
        await p.getByRole("button", { name: "Change password" }).click();
        await expect(p.locator(".field-error").first()).toBeVisible();
        const remove = p.locator("[data-settings-card]").last();
        await remove.getByLabel("Password", { exact: true }).fill("x");
        await remove.getByLabel(/^Type .* to confirm$/).fill("typed");
      });
    });

    test("billing", async ({ page, baseURL }) => {
      await seedUser(page, baseURL as string, { premium, supplements: false });
      await sweep(page, `${plan} billing`, async (p) => {
        await gotoHydrated(p, "/billing");
        const heading = premium ? "Premium Active" : "No Active Subscription";
        await expect(p.getByRole("main").getByRole("heading", { name: heading })).toBeVisible();
        if (premium) await expect(p.locator('dd[aria-live="polite"] .animate-pulse')).toHaveCount(0);
      });
    });

    test("public profile", async ({ page, baseURL }) => {
      const { username } = await seedUser(page, baseURL as string, { premium, username: premium ? "word" : "wide" });
      // Issue 14: a premium page shows 'View Product', 'Paid link', the disclosure and (turned on) the notes.
      if (premium) await apiCall(page, baseURL as string, "PUT", "/api/profile", { showNotes: true });
      await sweep(page, `${plan} public profile`, async (p) => {
        expect((await p.goto(`/${username}`))?.status()).toBe(200);
        await expect(p.getByRole("heading", { level: 1, name: `@${username}` })).toBeVisible();
        await expect(p.getByRole("link", { name: /View Product/ })).toHaveCount(premium ? 3 : 0);
      });
    });
  });
}

test.describe("tracking (issue 19)", () => {
  /** A 2.5 Tablespoon(s) dose at every time of day, 100-character names, ticked, skipped and as needed. */
  async function seedTracking(page: Page, base: string) {
    const seeded = await seedUser(page, base, { username: "wide" });
    const list = await apiCall<{ id: number; name: string; quantityType: string; frequency: string }[]>(
      page,
      base,
      "GET",
      "/api/supplements",
    );
    const [first, second, third] = list as [(typeof list)[0], (typeof list)[0], (typeof list)[0]];
    const every = { times: ["morning", "afternoon", "evening", "bedtime"], days: [1, 2, 3, 4, 5, 6, 7] };
    await apiCall(page, base, "PUT", `/api/supplements/${first.id}`, { ...first, schedule: every, doseAmount: 2.5 });
    await apiCall(page, base, "PUT", `/api/supplements/${second.id}`, { ...second, doseAmount: 1000 });
    await apiCall(page, base, "PUT", `/api/supplements/${third.id}`, { ...third, schedule: null, doseAmount: 0.25 });
    const today = await apiCall<{ date: string }>(page, base, "GET", "/api/today");
    await apiCall(page, base, "PUT", `/api/intakes/${today.date}/${first.id}/morning`, { status: "taken" });
    await apiCall(page, base, "PUT", `/api/intakes/${today.date}/${first.id}/evening`, { status: "skipped" });
    await apiCall(page, base, "PUT", "/api/profile", { showSchedule: true });
    return seeded;
  }

  const cardsLoaded = async (p: Page) => {
    await gotoHydrated(p, "/");
    await expect(p.getByTestId("today-card").getByText("1 of 5 taken")).toBeVisible({ timeout: 15_000 });
    await expect(p.getByTestId("heatmap-cell").first()).toBeVisible({ timeout: 15_000 });
  };

  test("the Today and History cards, and the dialog with its seven day toggles", async ({ page, baseURL }) => {
    test.slow();
    await seedTracking(page, baseURL as string);
    await sweep(page, "tracking cards", cardsLoaded);
    await sweep(page, "tracking dialog", async (p) => {
      await cardsLoaded(p);
      await openDialog(p, "Add Item", "Add New Supplement");
      const d = dialog(p, "Add New Supplement");
      await d.getByRole("checkbox", { name: "Every day" }).uncheck();
      await expect(d.getByRole("button", { name: "Wednesday" })).toBeVisible();
      await d.getByLabel("Amount per dose").fill("1000.999");
      await p.getByRole("button", { name: "Add Supplement" }).click();
      await expect(d.locator(".field-error").first()).toBeVisible();
    });
  });

  test("/settings' Time zone card with a long zone name", async ({ page, baseURL }) => {
    const base = baseURL as string;
    await seedUser(page, base, { username: "wide", supplements: false });
    await apiCall(page, base, "PUT", "/api/profile", { timeZone: "America/Argentina/ComodRivadavia" });
    // The longest name without a space to break at; read back in the runtime's spelling.
    const { timeZone } = await apiCall<{ timeZone: string }>(page, base, "GET", "/api/auth/user");
    await sweep(page, "tracking settings time zone", async (p) => {
      await gotoHydrated(p, "/settings");
      const card = p.getByRole("region", { name: "Time zone", exact: true });
      await expect(card.getByText(`Your days start at midnight here: ${timeZone.replaceAll("_", " ")}.`)).toBeVisible();
      await expect(card.getByRole("combobox", { name: "Time zone" })).toHaveValue(timeZone);
    });
  });

  test("the public profile grouped by time of day", async ({ page, baseURL }) => {
    const { username } = await seedTracking(page, baseURL as string);
    await sweep(page, "tracking public profile", async (p) => {
      await p.goto(`/${username}`);
      await expect(p.getByRole("heading", { name: "Bedtime" })).toBeVisible();
    });
  });
});

test("public profile of a 50-letter username, signed out", async ({ page, browser, baseURL }) => {
  const { username } = await seedUser(page, baseURL as string, { username: "letters" });
  await signedOut(browser, baseURL as string, (visitor) =>
    sweep(visitor, "public profile, visitor", async (p) => {
      expect((await p.goto(`/${username}`))?.status()).toBe(200);
      await expect(p.getByRole("list", { name: "Social links" }).getByRole("link")).toHaveCount(8);
    }),
  );
});

/**
 * Issue 16's Share dialog on a phone: the QR code and every control of the dialog must be
 * usable with a 50-character username, beyond not scrolling sideways (the sweep above):
 * the QR code drawn and wholly on screen, each button and link inside the viewport and
 * hit by a click there (nothing covers it), and axe-core clean. SCREENSHOTS keeps
 * `card-share-dialog-{width}.png`.
 */
for (const width of [320, 360]) {
  test(`Share dialog (issue 16) at ${width} px with a 50-character username: QR visible, buttons reachable, axe 0`, async ({
    page,
    baseURL,
  }) => {
    const { username } = await seedUser(page, baseURL as string, { username: "wide" });
    await page.setViewportSize({ width, height: width === 320 ? 568 : 740 });
    await gotoHydrated(page, "/");
    await openDialog(page, "Share Profile", "Public Profile Preview");
    const share = dialog(page, "Public Profile Preview");
    const qr = share.getByRole("img", { name: `QR code for ${baseURL}/${username}` });
    await qr.scrollIntoViewIfNeeded();
    await expect(qr).toBeVisible();
    await expect
      .poll(() => qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
      .toBeGreaterThan(0);
    const inside = async (what: string, box: { x: number; y: number; width: number; height: number } | null) => {
      expect(box, `${what} has a box`).not.toBeNull();
      const b = box as { x: number; y: number; width: number; height: number };
      expect([what, b.x >= 0, b.x + b.width <= width, b.width > 0, b.height > 0]).toEqual([
        what,
        true,
        true,
        true,
        true,
      ]);
    };
    await inside("the QR code", await qr.boundingBox());
    const controls = [
      share.getByRole("button", { name: "Copy Link" }),
      share.getByRole("link", { name: "View Live" }),
      share.getByRole("link", { name: "Download SVG" }),
      share.getByRole("button", { name: "Download PNG" }),
      share.getByRole("button", { name: "Close", exact: true }),
    ];
    for (const control of controls) {
      const name = (await control.textContent())?.trim() || ((await control.getAttribute("aria-label")) ?? "a control");
      await control.scrollIntoViewIfNeeded();
      await inside(name, await control.boundingBox());
      await control.click({ trial: true }); // visible, enabled, stable and not covered where it would be clicked
    }
    const overflow = await horizontalOverflow(page);
    expect(overflow.scrolls, overflow.offenders.join("\n")).toBe(false);
    expect(overflow.offenders).toEqual([]);
    await expectNoA11yViolations(page);
    if (SCREENSHOTS) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      await share.getByRole("button", { name: "Download PNG" }).scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SCREENSHOTS, `card-share-dialog-${width}.png`) });
    }
  });
}

test("subscribe: the payment form (Stripe double)", async ({ page, baseURL }) => {
  await routeStripe(page);
  await seedUser(page, baseURL as string, { supplements: false });
  await sweep(page, "subscribe form", async (p) => {
    await gotoHydrated(p, "/subscribe");
    await expect(p.getByTestId("stub-payment-element")).toBeVisible();
    await expect(p.getByRole("button", { name: "Subscribe to Premium" })).toBeEnabled();
  });
});

test.describe("a server without Stripe keys", () => {
  let server: { url: string; stop(): Promise<void> };
  test.beforeAll(async () => {
    // Two cores shared with the other workers: a server may take a while to start.
    test.setTimeout(90_000);
    server = await startServerWithoutStripe();
  });
  test.afterAll(async () => {
    await server?.stop();
  });

  test("subscribe: the Subscription Error card", async ({ page }) => {
    await seedUser(page, server.url, { supplements: false });
    await sweep(page, "subscribe, payments not configured", async (p) => {
      await gotoHydrated(p, `${server.url}/subscribe`);
      await expect(p.getByText("Payments are not configured on this server.")).toBeVisible();
    });
  });
});
