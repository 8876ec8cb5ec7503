/**
 * Stock is private (issue 40): every public answer about a profile — its JSON, from the
 * database and from memory, its card's facts, its QR code, its `/go/{id}` — is byte for byte
 * what it was before the owner set a pack size, counted, ticked, refilled and was reminded;
 * the export has it; deleting the account deletes it.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { resetClock } from "../../api/lib/clock";
import type { Mail } from "../../api/lib/mail";
import { reminderRound, senderDeps } from "../../api/reminders/worker";
import { cardFacts } from "../../api/sharing/card-facts";
import { rowsOf } from "../../db/rows";
import { startApi, type TestApi } from "../support/server";
import { addSupplementAs, requestsAs, steppingClock } from "../support/tracking-api";
import { confirmEmail, createUser, uniqueName } from "../support/users";

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  resetClock();
  await api?.close();
});
afterEach(() => resetClock());

const as = requestsAs(() => api);

describe("stock is private", () => {
  test("public answers do not change with stock; the export has it; account deletion removes it", async () => {
    const move = steppingClock("2026-11-20T09:00:00Z");
    const name = uniqueName("priv");
    const owner = await createUser(api, { username: name, premium: true });
    expect(
      (await as(owner, "/api/profile", { method: "PUT", body: { showSchedule: true, showNotes: true } })).status,
    ).toBe(200);
    const x = await addSupplementAs(api, owner, {
      name: "Iron",
      doseAmount: 2,
      affiliateLink: "https://shop.example/iron",
      notes: "with orange juice",
      schedule: { times: ["morning"], days: [1, 2, 3, 4, 5, 6, 7] },
    });
    const publicPaths = [`/api/profile/${name}`, `/${name}/qr.svg`, `/go/${x}`];
    const publicAnswers = async () => {
      const out: string[] = [];
      for (const path of publicPaths) {
        for (let i = 0; i < 2; i++) {
          // The second from memory.
          const res = await api.fetch(path, { redirect: "manual" });
          out.push(`${path} ${res.status} ${res.headers.get("location") ?? ""} ${await res.text()}`);
        }
      }
      const profile = await (await api.fetch(`/api/profile/${name}`)).json();
      out.push(JSON.stringify(cardFacts(profile)));
      return out;
    };
    const before = await publicAnswers();
    expect(before[0]).toContain("with orange juice"); // the page shows what it may

    await confirmEmail(api, owner);
    await as(owner, "/api/reminders", { method: "PUT", body: { email: true } });
    await as(owner, `/api/supplements/${x}/stock`, { method: "PUT", body: { unitsPerPack: 8765, count: 4321.5 } });
    await as(owner, `/api/intakes/2026-11-20/${x}/morning`, { method: "PUT", body: { status: "taken" } });
    await as(owner, `/api/supplements/${x}/refills`, { method: "POST", body: { packs: 1 } });
    await as(owner, `/api/supplements/${x}/stock`, { method: "PUT", body: { count: 3 } });
    const mails: Mail[] = [];
    await reminderRound({ ...senderDeps(api.ctx), mailer: async (m) => void mails.push(m) });
    expect(mails.map((m) => m.subject)).toEqual(["Refill soon: Iron"]);
    move("2026-11-20T09:05:00Z");
    const after = await publicAnswers();
    expect(after).toEqual(before);
    for (const answer of after) {
      for (const word of ["stock", "unitsPerPack", "runsOutOn", "refill", "8765", "4321", "left"]) {
        expect([answer.slice(0, 40), answer.includes(word)]).toEqual([answer.slice(0, 40), false]);
      }
    }

    // The export: the supplement's own columns and the derived section.
    const doc = (await (await as(owner, "/api/account/export?format=json")).json()) as {
      supplements: Record<string, unknown>[];
      stock: Record<string, unknown>[];
    };
    expect(doc.supplements[0]).toMatchObject({ unitsPerPack: 8765, stockCount: 3, stockRefills: [] });
    expect(doc.stock).toEqual([
      { supplementId: x, name: "Iron", left: 3, unitsPerPack: 8765, runsOutOn: "2026-11-21", refillDue: true },
    ]);

    // Deleting the account deletes every row of it.
    const gone = await as(owner, "/api/account", {
      method: "DELETE",
      body: { password: owner.password, confirm: name },
    });
    expect(gone.status).toBe(200);
    for (const table of ["supplements", "reminder_settings", "reminder_outbox", "intakes"]) {
      const result = await api.ctx.database.db.execute(
        sql.raw(`select count(*)::int as n from ${table} where user_id = '${owner.id}'`),
      );
      expect([table, Number(rowsOf(result)[0]?.n)]).toEqual([table, 0]);
    }
  });
});
