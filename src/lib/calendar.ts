/**
 * The calendar feed's settings (issue 50 §1): the wire shape, its input schema and its
 * messages, shared by the API (api/calendar) and the Settings card.
 */
import { z } from "zod";

export interface CalendarJson {
  enabled: boolean;
  /** `https://…/api/calendar/{token}.ics`; null while off. */
  url: string | null;
  hideNames: boolean;
}

export const CALENDAR_MESSAGES = {
  offForReset: "Turn the calendar feed on first",
  enabled: "enabled must be true or false",
  hideNames: "hideNames must be true or false",
  nothing: "Nothing to change: send enabled or hideNames",
} as const;

/** `PUT /api/calendar`: any of the two switches, nothing else. */
export const calendarInputSchema = z
  .object({
    enabled: z.boolean({ message: CALENDAR_MESSAGES.enabled }).optional(),
    hideNames: z.boolean({ message: CALENDAR_MESSAGES.hideNames }).optional(),
  })
  .strict()
  .refine((v) => v.enabled !== undefined || v.hideNames !== undefined, { message: CALENDAR_MESSAGES.nothing });
