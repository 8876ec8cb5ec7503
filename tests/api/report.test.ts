/**
 * Issue 50 §2, the report for the doctor over HTTP, on a moved clock: three weeks of ticks,
 * skips and misses (an edit on the way, a weekday schedule, an as-needed supplement counted
 * twice a day, one added mid-range, one removed) read back as the report, its CSV and
 * GET /api/history for the same range: the same numbers every day. The CSV's columns, BOM,
 * CRLF and formula cells; the range and supplement rules as a table of 400s; only one's own.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { freezeClock, resetClock } from "../../api/lib/clock";
import { addDays } from "../../src/lib/dates";
import { REPORT_MESSAGES, type ReportJson } from "../../src/lib/report";
import type { HistoryJson } from "../../src/lib/schedule";
import { migratedDatabase } from "../support/pglite-template";
import { startApi, type TestApi } from "../support/server";
import { addSupplementAs, requestsAs } from "../support/tracking-api";
import { type ApiUser, createUser } from "../support/users";

let api: TestApi;
const as = requestsAs(() => api);
const ALL = [1, 2, 3, 4, 5, 6, 7];
const START = "2026-10-05"; // a Monday
const END = "2026-10-25"; // 21 days
/** 09:00 in Berlin on `day` (summer time until 25 October). */
const morningOf = (day: string) => `${day}T07:00:00Z`;

beforeAll(async () => {
  api = await startApi({}, { database: await migratedDatabase() });
});
afterAll(async () => {
  resetClock();
  await api?.close();
});
afterEach(() => resetClock());

async function json<T>(res: Response, status = 200): Promise<T> {
  expect(res.status, await res.clone().text()).toBe(status);
  return (await res.json()) as T;
}

const put = (user: ApiUser, path: string, body: Record<string, unknown>) => as(user, path, { method: "PUT", body });

/** Three weeks of a stack, written day by day on the moved clock; answers the ids. */
async function threeWeeks(user: ApiUser) {
  freezeClock(morningOf(START));
  await json(await put(user, "/api/profile", { timeZone: "Europe/Berlin" }));
  const magnesium = await addSupplementAs(api, user, {
    name: "Magnesium",
    doseAmount: 2,
    schedule: { times: ["morning", "evening"], days: ALL },
  });
  const d3 = await addSupplementAs(api, user, {
    name: '=HYPERLINK("x"), D3',
    quantityType: "Soft Gel",
    doseAmount: 1,
    schedule: { times: ["bedtime"], days: [1, 2, 3, 4, 5] },
  });
  const melatonin = await addSupplementAs(api, user, {
    name: "Melatonin",
    quantityType: "Tablet(s)",
    frequency: "As needed",
    schedule: null,
    asNeeded: { maxPerDay: 3, minHoursBetween: null },
  });
  let zinc = 0;
  for (let i = 0, day = START; day <= END; i++, day = addDays(day, 1)) {
    freezeClock(morningOf(day));
    if (day === "2026-10-12") {
      // Zinc joins on the 12th (its morning that day is not missed: history does not count it).
      zinc = await addSupplementAs(api, user, { name: "Zinc", schedule: { times: ["morning"], days: ALL } });
    }
    if (day === "2026-10-15") {
      // Magnesium becomes mornings only from the 15th.
      await json(
        await put(user, `/api/supplements/${magnesium}`, {
          name: "Magnesium",
          quantityType: "Capsule(s)",
          frequency: "daily",
          doseAmount: 2,
          schedule: { times: ["morning"], days: ALL },
        }),
      );
    }
    if (day === "2026-10-20") {
      // D3 is removed on the 20th: its earlier days stay in the report.
      expect((await as(user, `/api/supplements/${d3}`, { method: "DELETE" })).status).toBe(204);
    }
    if (day === END) break; // today: nothing ticked yet
    if (i % 2 === 0) await json(await put(user, `/api/intakes/${day}/${magnesium}/morning`, { status: "taken" }));
    if (i % 3 === 0 && day < "2026-10-15") {
      await json(await put(user, `/api/intakes/${day}/${magnesium}/evening`, { status: "skipped" }));
    }
    const weekday = new Date(`${day}T12:00:00Z`).getUTCDay();
    if (weekday >= 1 && weekday <= 5 && day < "2026-10-20" && i % 4 !== 1) {
      await json(await put(user, `/api/intakes/${day}/${d3}/bedtime`, { status: "taken" }));
    }
    if (i % 5 === 0) await json(await put(user, `/api/intakes/${day}/${melatonin}/as-needed`, { count: 2 }));
    if (zinc && day > "2026-10-12" && i % 2 === 1) {
      await json(await put(user, `/api/intakes/${day}/${zinc}/morning`, { status: "taken" }));
    }
  }
  freezeClock(morningOf(END));
  return { magnesium, d3, melatonin, zinc };
}

describe("the report against history", () => {
  test("every day's due, taken, skipped and missed are history's; the CSV has the same doses", async () => {
    const user = await createUser(api);
    const ids = await threeWeeks(user);
    const range = `from=${START}&to=${END}`;
    const report = await json<ReportJson>(await as(user, `/api/report?${range}`));
    const history = await json<HistoryJson>(await as(user, `/api/history?${range}`));
    expect(report.days.map((d) => d.date)).toEqual(history.days.map((d) => d.date));
    const scheduled = new Set(report.supplements.filter((s) => !s.asNeeded).map((s) => s.id));
    for (const [i, day] of report.days.entries()) {
      const marks = Object.entries(day.cells)
        .filter(([id]) => scheduled.has(Number(id)))
        .flatMap(([, m]) => m);
      const count = (status: string) => marks.filter((m) => m === status).length;
      expect(
        { due: marks.length, taken: count("taken"), skipped: count("skipped"), missed: count("missed") },
        day.date,
      ).toEqual(
        (({ due, taken, skipped, missed }) => ({ due, taken, skipped, missed }))(
          history.days[i] ?? { due: -1, taken: -1, skipped: -1, missed: -1 },
        ),
      );
    }
    // Every supplement of the range, in list order, the removed one last.
    expect(report.supplements.map((s) => s.id)).toEqual([ids.magnesium, ids.melatonin, ids.zinc, ids.d3]);
    const byId = new Map(report.supplements.map((s) => [s.id, s]));
    // Magnesium: 10 days of two doses, then 11 of one (21 days, 31 due); mornings on even i.
    expect(byId.get(ids.magnesium)).toMatchObject({
      name: "Magnesium",
      dose: "2 capsules",
      schedule: "Morning, every day",
      due: 31,
      taken: 10,
      skipped: 4,
      missed: 16,
      adherence: 32,
      inList: true,
    });
    expect(byId.get(ids.melatonin)).toMatchObject({ asNeeded: true, taken: 8, due: 0, adherence: null });
    expect(byId.get(ids.d3)).toMatchObject({ inList: false, schedule: "Bedtime, weekdays" });
    // Zinc's first day is not missed, and today is open.
    const zincDays = report.days.map((d) => (d.cells[ids.zinc] ?? []).join("")).filter(Boolean);
    expect(zincDays[0]).toBe("open");
    expect(zincDays.at(-1)).toBe("open");
    // Every total is the sum of its days' marks, and each a row of the CSV.
    const csv = await as(user, `/api/report.csv?${range}`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(csv.headers.get("content-disposition")).toBe(
      `attachment; filename="stacktrack-report-${START}-to-${END}.csv"`,
    );
    const bytes = new Uint8Array(await csv.arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = new TextDecoder().decode(bytes.slice(3));
    expect(text.endsWith("\r\n")).toBe(true);
    const lines = text.slice(0, -2).split("\r\n");
    expect(lines[0]).toBe("date,time,supplement,amount,unit,status,ticked_at");
    expect(lines.length - 1).toBe(report.doses.length);
    for (const s of report.supplements) {
      const rows = report.doses.filter((d) => d.supplementId === s.id);
      expect(rows.filter((d) => d.status === "taken").length, s.name).toBe(s.taken);
      if (!s.asNeeded) {
        expect(rows.length, s.name).toBe(s.due);
        expect(rows.filter((d) => d.status === "missed").length, s.name).toBe(s.missed);
      }
    }
    // A formula-looking name is neutralised and quoted (it holds a comma and quotes).
    expect(lines.some((l) => l.includes(`"'=HYPERLINK(""x""), D3"`))).toBe(true);
    // A taken dose's row: its time of day, amount and unit, and when it was ticked.
    expect(lines).toContain(`${START},morning,Magnesium,2,Capsule(s),taken,${START}T07:00:00.000Z`);
    expect(lines).toContain(`${START},evening,Magnesium,2,Capsule(s),skipped,${START}T07:00:00.000Z`);
    expect(lines).toContain(`${START},as-needed,Melatonin,,Tablet(s),taken,${START}T07:00:00.000Z`);
    expect(lines).toContain(`2026-10-06,morning,Magnesium,2,Capsule(s),missed,`);
  });

  test("only the supplements asked for; the page's choices still list them all", async () => {
    const user = await createUser(api);
    const ids = await threeWeeks(user);
    const report = await json<ReportJson>(
      await as(user, `/api/report?from=${START}&to=${END}&supplements=${ids.zinc},${ids.melatonin}`),
    );
    expect(report.supplements.map((s) => s.id)).toEqual([ids.melatonin, ids.zinc]);
    expect(report.available.map((s) => s.id)).toEqual([ids.magnesium, ids.melatonin, ids.zinc, ids.d3]);
    expect(new Set(report.doses.map((d) => d.supplementId))).toEqual(new Set([ids.melatonin, ids.zinc]));
  });

  test("the default range: the last 30 days, ending today in the user's zone", async () => {
    const user = await createUser(api);
    freezeClock("2026-11-29T23:30:00Z"); // already the 30th in Berlin
    await json(await put(user, "/api/profile", { timeZone: "Europe/Berlin" }));
    const report = await json<ReportJson>(await as(user, "/api/report"));
    expect({ from: report.from, to: report.to, days: report.days.length }).toEqual({
      from: "2026-11-01",
      to: "2026-11-30",
      days: 30,
    });
    expect(report.supplements).toEqual([]);
  });
});

describe("bad input: a 400 naming the field", () => {
  const cases: [string, string, string, string][] = [
    ["from not a date", "from=2026-02-30", "from", REPORT_MESSAGES.date],
    ["to not a date", "to=tomorrow", "to", REPORT_MESSAGES.date],
    ["to in the future", "to=2026-12-01", "to", REPORT_MESSAGES.range],
    ["from after to", "from=2026-11-20&to=2026-11-10", "from", REPORT_MESSAGES.range],
    ["367 days", "from=2025-11-27&to=2026-11-28", "from", REPORT_MESSAGES.range],
    ["before 2000", "from=1999-12-31&to=2000-01-02", "from", REPORT_MESSAGES.range],
    ["a supplement id not a number", "supplements=1,x", "supplements", REPORT_MESSAGES.supplements],
    ["a supplement id of 0", "supplements=0", "supplements", REPORT_MESSAGES.supplements],
    ["a supplement id past int4", "supplements=2147483648", "supplements", REPORT_MESSAGES.supplements],
    ["an empty id", "supplements=1,,2", "supplements", REPORT_MESSAGES.supplements],
    [
      "201 ids",
      `supplements=${Array.from({ length: 201 }, (_, i) => i + 1).join(",")}`,
      "supplements",
      REPORT_MESSAGES.supplements,
    ],
    ["another user's supplement", "supplements=OTHER", "supplements", REPORT_MESSAGES.supplements],
  ];
  for (const path of ["/api/report", "/api/report.csv"]) {
    test.each(cases)(`${path} with %s`, async (_what, query, field, message) => {
      freezeClock("2026-11-28T12:00:00Z");
      const [user, other] = [await createUser(api), await createUser(api)];
      const theirs = await addSupplementAs(api, other, { name: "Theirs" });
      const res = await as(user, `${path}?${query.replace("OTHER", String(theirs))}`);
      const answer = await json<{ message: string; errors: Record<string, string[]> }>(res, 400);
      expect(answer.message).toBe(message);
      expect(Object.keys(answer.errors)).toEqual([field]);
    });
  }

  test.each(["/api/report", "/api/report.csv"])("signed out, %s: 401", async (path) => {
    expect((await api.fetch(path)).status).toBe(401);
  });
});
