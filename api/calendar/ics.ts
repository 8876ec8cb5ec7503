/**
 * iCalendar text (RFC 5545) for the calendar feed (issue 50 §1): one VCALENDAR of timed and
 * all-day VEVENTs. Lines end in CRLF and are folded at 75 octets (a continuation line starts
 * with one space, and a character's UTF-8 bytes are never split); TEXT values escape `\`, `;`,
 * `,` and newlines. Pure: the caller gives every instant, `stamp` included.
 */

export interface TimedEvent {
  uid: string;
  /** The instant it starts (written in UTC, `…Z`). */
  start: Date;
  /** Minutes; written as `DURATION:PT{n}M`. */
  minutes: number;
  summary: string;
  description?: string;
}

export interface AllDayEvent {
  uid: string;
  /** `YYYY-MM-DD`, written as `DTSTART;VALUE=DATE`. */
  date: string;
  summary: string;
  description?: string;
}

export type CalendarEvent = TimedEvent | AllDayEvent;

export interface CalendarOptions {
  prodId: string;
  name: string;
  /** How often a client should fetch it again, in minutes (REFRESH-INTERVAL, X-PUBLISHED-TTL). */
  refreshMinutes: number;
  /** DTSTAMP of every event: when this text was made. */
  stamp: Date;
}

const CRLF = "\r\n";
const MAX_OCTETS = 75;
const encoder = new TextEncoder();

/** A TEXT value: `\` `;` `,` escaped, each newline (CRLF, CR or LF) as `\n`. */
export function escapeText(value: string): string {
  return value
    .replace(/\\/g, "\\\\")
    .replace(/;/g, "\\;")
    .replace(/,/g, "\\,")
    .replace(/\r\n|\r|\n/g, "\\n");
}

/** One content line folded at 75 octets, continuation lines starting with a space. */
export function foldLine(line: string): string {
  if (encoder.encode(line).length <= MAX_OCTETS) return line;
  const parts: string[] = [];
  let current = "";
  let octets = 0;
  // The first line holds 75 octets; each continuation line a space and 74 more.
  let limit = MAX_OCTETS;
  for (const char of line) {
    const size = encoder.encode(char).length;
    if (octets + size > limit) {
      parts.push(current);
      current = "";
      octets = 0;
      limit = MAX_OCTETS - 1;
    }
    current += char;
    octets += size;
  }
  parts.push(current);
  return parts.join(`${CRLF} `);
}

/** `20261129T083000Z` */
export function utcStamp(instant: Date): string {
  return instant
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}Z$/, "Z");
}

/** `PT1H`, `PT90M`: whole hours as hours. */
const duration = (minutes: number) => (minutes % 60 === 0 ? `PT${minutes / 60}H` : `PT${minutes}M`);

const isAllDay = (event: CalendarEvent): event is AllDayEvent => "date" in event;

function eventLines(event: CalendarEvent, stamp: string): string[] {
  const lines = ["BEGIN:VEVENT", `UID:${escapeText(event.uid)}`, `DTSTAMP:${stamp}`];
  if (isAllDay(event)) {
    lines.push(`DTSTART;VALUE=DATE:${event.date.replace(/-/g, "")}`);
  } else {
    lines.push(`DTSTART:${utcStamp(event.start)}`, `DURATION:${duration(event.minutes)}`);
  }
  lines.push(`SUMMARY:${escapeText(event.summary)}`);
  if (event.description) lines.push(`DESCRIPTION:${escapeText(event.description)}`);
  lines.push("TRANSP:TRANSPARENT", "END:VEVENT");
  return lines;
}

/** The whole calendar: CRLF line ends, every line folded. */
export function calendarText(events: CalendarEvent[], options: CalendarOptions): string {
  const stamp = utcStamp(options.stamp);
  const lines = [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    `PRODID:${options.prodId}`,
    "CALSCALE:GREGORIAN",
    "METHOD:PUBLISH",
    `X-WR-CALNAME:${escapeText(options.name)}`,
    `REFRESH-INTERVAL;VALUE=DURATION:${duration(options.refreshMinutes)}`,
    `X-PUBLISHED-TTL:${duration(options.refreshMinutes)}`,
    ...events.flatMap((event) => eventLines(event, stamp)),
    "END:VCALENDAR",
  ];
  return lines.map(foldLine).join(CRLF) + CRLF;
}
