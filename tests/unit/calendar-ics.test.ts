/**
 * Issue 50 §1: the calendar feed's text and events, read back by a real iCalendar parser
 * (ical.js): folding, escaping, CRLF, the calendar's properties; events × zones × a clock
 * change, any-time doses in the morning, as-needed never, names hidden, refills all day.
 */
import { describe, expect, test } from "bun:test";
import ICAL from "ical.js";
import { type FeedDose, type FeedInput, feedEvents } from "../../api/calendar/events";
import { calendarText, escapeText, foldLine } from "../../api/calendar/ics";

const OPTIONS = {
  prodId: "-//StackTrack//Calendar feed//EN",
  name: "StackTrack",
  refreshMinutes: 60,
  stamp: new Date("2026-11-29T10:00:00Z"),
};
const TIMES = { morning: "08:00", afternoon: "13:00", evening: "19:00", bedtime: "22:30" };
const dose = (name: string, time: FeedDose["time"], taken = false, phrase = "1 capsule"): FeedDose => ({
  name,
  phrase,
  time,
  taken,
});
const input = (over: Partial<FeedInput>): FeedInput => ({
  feedId: "f1",
  host: "stacktrack.example.com",
  zone: "UTC",
  today: "2026-11-29",
  times: TIMES,
  days: [],
  refills: [],
  hideNames: false,
  ...over,
});
/** The text through ical.js: each event's uid, start (UTC ISO or the date), summary and description. */
function parsed(text: string) {
  const component = new ICAL.Component(ICAL.parse(text));
  return {
    calendar: component,
    events: component.getAllSubcomponents("vevent").map((v) => {
      const event = new ICAL.Event(v);
      return {
        uid: event.uid,
        start: event.startDate.isDate ? event.startDate.toString() : event.startDate.toJSDate().toISOString(),
        summary: event.summary,
        description: (event.description as string | null) ?? null,
        duration: v.getFirstPropertyValue("duration")?.toString() ?? null,
      };
    }),
  };
}

describe("text values and lines", () => {
  test.each([
    ["plain", "Vitamin D3", "Vitamin D3"],
    ["a comma", "Fish oil, 1000 mg", "Fish oil\\, 1000 mg"],
    ["a semicolon", "A; B", "A\\; B"],
    ["a backslash", "C:\\D", "C:\\\\D"],
    ["newlines of each kind", "a\nb\r\nc\rd", "a\\nb\\nc\\nd"],
  ])("%s", (_what, value, written) => {
    expect(escapeText(value)).toBe(written);
  });

  test.each([
    ["ASCII", "SUMMARY:".padEnd(200, "x")],
    ["two-byte letters", `SUMMARY:${"é".repeat(120)}`],
    ["emoji (four bytes) across the fold", `DESCRIPTION:${"a".repeat(73)}${"💊".repeat(30)}`],
  ])("folding %s: every line at most 75 octets, no character split, unfolds to the same line", (_what, line) => {
    const folded = foldLine(line);
    const lines = folded.split("\r\n");
    expect(lines.length).toBeGreaterThan(1);
    for (const [i, l] of lines.entries()) {
      expect(new TextEncoder().encode(l).length).toBeLessThanOrEqual(75);
      if (i > 0) expect(l.startsWith(" ")).toBe(true);
      expect(l.includes("\uFFFD")).toBe(false);
    }
    expect(folded.replace(/\r\n /g, "")).toBe(line);
  });
});

describe("the calendar", () => {
  test("CRLF everywhere, its properties, and what a parser reads back", () => {
    const text = calendarText(
      feedEvents(
        input({
          days: [
            { date: "2026-11-30", doses: [dose("Vitamin D3", "morning"), dose("Fish oil, 1000 mg; omega", "morning")] },
          ],
        }),
      ),
      OPTIONS,
    );
    expect(text.endsWith("\r\n")).toBe(true);
    expect(text.replace(/\r\n/g, "").includes("\n")).toBe(false);
    const { calendar, events } = parsed(text);
    expect(calendar.getFirstPropertyValue("version")).toBe("2.0");
    expect(calendar.getFirstPropertyValue("prodid")).toBe(OPTIONS.prodId);
    expect(calendar.getFirstPropertyValue("x-wr-calname")).toBe("StackTrack");
    expect(text).toContain("\r\nREFRESH-INTERVAL;VALUE=DURATION:PT1H\r\n");
    expect(text).toContain("\r\nX-PUBLISHED-TTL:PT1H\r\n");
    expect(text).not.toContain("VALARM");
    expect(events).toEqual([
      {
        uid: "2026-11-30-morning-f1@stacktrack.example.com",
        start: "2026-11-30T08:00:00.000Z",
        summary: "Morning: Vitamin D3, Fish oil, 1000 mg; omega",
        description: "Vitamin D3, 1 capsule\nFish oil, 1000 mg; omega, 1 capsule",
        duration: "PT15M",
      },
    ]);
    expect(text).toContain("TRANSP:TRANSPARENT");
  });
});

describe("events", () => {
  test("one per timed slot and day, in slot order; any time joins the morning; as needed never", () => {
    const events = parsed(
      calendarText(
        feedEvents(
          input({
            days: [
              {
                date: "2026-12-01",
                doses: [
                  dose("Zinc", "bedtime"),
                  dose("Magnesium", "anytime"),
                  dose("Melatonin", "as-needed"),
                  dose("Iron", "morning"),
                ],
              },
              { date: "2026-12-02", doses: [dose("Melatonin", "as-needed")] },
            ],
          }),
        ),
        OPTIONS,
      ),
    ).events;
    expect(events.map((e) => [e.uid, e.start, e.summary])).toEqual([
      ["2026-12-01-morning-f1@stacktrack.example.com", "2026-12-01T08:00:00.000Z", "Morning: Magnesium, Iron"],
      ["2026-12-01-bedtime-f1@stacktrack.example.com", "2026-12-01T22:30:00.000Z", "Bedtime: Zinc"],
    ]);
  });

  // The slot's reminder time in the user's zone, across a clock change (Berlin: 29 March, 25 October 2026).
  test.each([
    ["Europe/Berlin", "2026-03-28", "08:00", "2026-03-28T07:00:00.000Z"],
    ["Europe/Berlin", "2026-03-29", "08:00", "2026-03-29T06:00:00.000Z"],
    ["Europe/Berlin", "2026-03-29", "02:30", "2026-03-29T01:00:00.000Z"],
    ["Europe/Berlin", "2026-10-25", "02:30", "2026-10-25T00:30:00.000Z"],
    ["America/New_York", "2026-11-01", "08:00", "2026-11-01T13:00:00.000Z"],
    ["Asia/Kathmandu", "2026-12-01", "08:00", "2026-12-01T02:15:00.000Z"],
    ["Pacific/Kiritimati", "2026-12-01", "08:00", "2026-11-30T18:00:00.000Z"],
  ])("%s on %s at %s starts %s", (zone, date, time, start) => {
    const events = parsed(
      calendarText(
        feedEvents(
          input({ zone, times: { ...TIMES, morning: time }, days: [{ date, doses: [dose("Iron", "morning")] }] }),
        ),
        OPTIONS,
      ),
    ).events;
    expect(events.map((e) => e.start)).toEqual([start]);
  });

  test("a past day tells what was taken; today and later do not", () => {
    const doses = [dose("Vitamin D3", "morning", true), dose("Magnesium", "morning", false)];
    const events = parsed(
      calendarText(
        feedEvents(
          input({
            days: [
              { date: "2026-11-28", doses },
              { date: "2026-11-29", doses },
            ],
          }),
        ),
        OPTIONS,
      ),
    ).events;
    expect(events.map((e) => e.description)).toEqual([
      "✓ Vitamin D3, 1 capsule\nMagnesium, 1 capsule",
      "Vitamin D3, 1 capsule\nMagnesium, 1 capsule",
    ]);
  });

  test("names hidden: how many, never which, in the summary, the description and the refill", () => {
    const doses = [dose("Vitamin D3", "morning", true), dose("Ashwagandha", "morning")];
    const events = feedEvents(
      input({
        hideNames: true,
        days: [
          { date: "2026-11-28", doses },
          { date: "2026-11-30", doses: [dose("Ashwagandha", "evening")] },
        ],
        refills: [{ supplementId: 7, name: "Ashwagandha", date: "2026-12-10" }],
      }),
    );
    const text = calendarText(events, OPTIONS);
    expect(text).not.toContain("Ashwagandha");
    expect(text).not.toContain("Vitamin");
    expect(parsed(text).events.map((e) => [e.summary, e.description ?? null])).toEqual([
      ["Morning: 2 supplements", "1 of 2 taken"],
      ["Evening: 1 supplement", "1 supplement"],
      ["Refill a supplement", null],
    ]);
  });

  test("a refill is an all-day event on its date", () => {
    const events = parsed(
      calendarText(
        feedEvents(input({ refills: [{ supplementId: 7, name: "Magnesium", date: "2026-12-10" }] })),
        OPTIONS,
      ),
    ).events;
    expect(events).toEqual([
      {
        uid: "2026-12-10-refill-7-f1@stacktrack.example.com",
        start: "2026-12-10",
        summary: "Refill Magnesium",
        description: null,
        duration: null,
      },
    ]);
    expect(
      calendarText(
        feedEvents(input({ refills: [{ supplementId: 7, name: "Magnesium", date: "2026-12-10" }] })),
        OPTIONS,
      ),
    ).toContain("DTSTART;VALUE=DATE:20261210");
  });

  test("UIDs stay the same from one fetch to the next, and differ per feed", () => {
    const days = [{ date: "2026-12-01", doses: [dose("Iron", "morning")] }];
    const a = feedEvents(input({ days })).map((e) => e.uid);
    expect(feedEvents(input({ days })).map((e) => e.uid)).toEqual(a);
    expect(feedEvents(input({ days, feedId: "f2" })).map((e) => e.uid)).not.toEqual(a);
  });
});
