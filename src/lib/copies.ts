/**
 * "Copy this stack" (issue 50 §3): the wire shapes, input rule and messages shared by the API
 * (api/copies), the /copy page, the dashboard's rows and their tests. No zod here: the rows are
 * in the dashboard's first load.
 */
import { MAX_SUPPLEMENTS } from "./constants";

/** The most copy requests one account may make in an hour. */
export const COPIES_PER_HOUR = 30;

export const COPY_MESSAGES = {
  from: "from must be the username of the stack to copy",
  supplementIds: "supplementIds must list at least one supplement id of that stack",
  unknown: "Some of these supplements are not in that stack",
  self: "This is your own stack",
  notFound: "Not found",
  full: (fits: number) =>
    fits === 0
      ? `Your stack is full (${MAX_SUPPLEMENTS} supplements): nothing was added`
      : `Only ${fits} more ${fits === 1 ? "supplement fits" : "supplements fit"} in your stack (at most ${MAX_SUPPLEMENTS}): nothing was added`,
  /** The dashboard's toast after a copy. */
  added: (n: number, username: string) => `Added ${n} ${n === 1 ? "supplement" : "supplements"} from @${username}`,
  /** The row of a copy. */
  source: (username: string) => `From @${username}'s stack`,
  already: "Already in your stack",
} as const;

/** The words of the public page and the /copy page. */
export const COPY_TEXT = {
  copyAll: "Copy this stack",
  addOne: "Add to my stack",
  buyAgain: "Buy again",
  setting: "Let visitors copy my stack",
  settingHint: "Your list is public already: this adds a Copy this stack link under it.",
} as const;

/** A copy's source, on the supplement's answer: whose stack, and where to buy it again (null: nowhere). */
export interface SupplementSource {
  username: string;
  buyUrl: string | null;
}
