/**
 * Issue 48's one table of "is it due on this day": patterns × days around startsOn, endsOn,
 * cycle boundaries and Berlin's spring clock change (2026-03-29), and a schedule edited
 * mid-cycle (versions). Read by the pure rule's test (tests/unit/due-rules.test.ts, which also
 * checks the database's copy of the rule on every row) and by the API's (tests/api/schedules.test.ts).
 */
import type { Schedule } from "../../src/lib/schedule";

/** The table's days: Tuesday 2026-03-24 to Monday 2026-04-06; masks below read X = due. */
export const TABLE_FROM = "2026-03-24";
export const TABLE_DAYS = 14;

const ALL = [1, 2, 3, 4, 5, 6, 7];
const morning: Pick<Schedule, "times"> = { times: ["morning"] };

export const PATTERNS: { name: string; schedule: Schedule; mask: string }[] = [
  // Set before issue 48 (no startsOn): its weekdays, as before.
  { name: "Mon/Wed/Fri, no start", schedule: { ...morning, days: [1, 3, 5] }, mask: ".X.X..X.X.X..X" },
  {
    name: "every 2 days from Fri 27th",
    schedule: { ...morning, days: ALL, startsOn: "2026-03-27", every: { days: 2 } },
    mask: "...X.X.X.X.X.X",
  },
  {
    name: "every 3 days from 24th, ends 2 April",
    schedule: { ...morning, days: ALL, startsOn: "2026-03-24", endsOn: "2026-04-02", every: { days: 3 } },
    mask: "X..X..X..X....",
  },
  {
    name: "5 on 2 off from Wed 25th",
    schedule: { ...morning, days: ALL, startsOn: "2026-03-25", cycle: { on: 5, off: 2 } },
    mask: ".XXXXX..XXXXX.",
  },
  {
    name: "1 on 1 off from 24th",
    schedule: { ...morning, days: ALL, startsOn: "2026-03-24", cycle: { on: 1, off: 1 } },
    mask: "X.X.X.X.X.X.X.",
  },
  {
    name: "daily, 28th to 30th only",
    schedule: { ...morning, days: ALL, startsOn: "2026-03-28", endsOn: "2026-03-30" },
    mask: "....XXX.......",
  },
  {
    name: "weekends from Sun 29th (the clock change)",
    schedule: { ...morning, days: [6, 7], startsOn: "2026-03-29", endsOn: null },
    mask: ".....X.....XX.",
  },
];

/** A 5-on-2-off cycle edited on Tue 31st to every 2 days: the days before keep the cycle. */
export const EDITED = {
  versions: [
    { validFrom: "2026-03-25", schedule: (PATTERNS[3] as { schedule: Schedule }).schedule },
    {
      validFrom: "2026-03-31",
      schedule: { ...morning, days: ALL, startsOn: "2026-03-31", every: { days: 2 } },
    },
  ],
  mask: ".XXXXX.X.X.X.X",
};

/** Zones far apart: a day is the zone's calendar day, whatever the instant's UTC date. */
export const ZONES = ["UTC", "Europe/Berlin", "Pacific/Auckland", "America/Los_Angeles"] as const;

/** Local times asked on each day: just after midnight, the hour Berlin's clocks skip, just before midnight. */
export const LOCAL_TIMES = ["00:01", "02:30", "23:59"] as const;
