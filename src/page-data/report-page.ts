/** The /report page's data (issue 50 §2): the range from the address, checked as the API checks it. */
import { getContext } from "../../api/lib/context";
import { HttpError } from "../../api/lib/http";
import { readReport, reportRange } from "../../api/report/read";
import { userToday } from "../../api/tracking/versions";
import type { ReportJson } from "../lib/report";
import type { CurrentUser } from "../lib/types";

export type ReportPage =
  | { ok: true; report: ReportJson; asked: number[] | null }
  | { ok: false; message: string; field: string | null; from: string; to: string };

export async function reportPage(user: CurrentUser, params: URLSearchParams): Promise<ReportPage> {
  const today = userToday(user);
  // A form sends each chosen supplement as its own `s`; the API's `supplements=1,2` works too.
  const chosen = params.getAll("s");
  const query = {
    from: params.get("from"),
    to: params.get("to"),
    supplements: chosen.length ? chosen.join(",") : params.get("supplements"),
  };
  const { database } = await getContext();
  try {
    const range = reportRange(query, today);
    return { ok: true, report: await readReport(database.db, user, range, today), asked: range.ids };
  } catch (error) {
    if (!(error instanceof HttpError) || error.status !== 400) throw error;
    const field = Object.keys(error.errors ?? {})[0] ?? null;
    return { ok: false, message: error.message, field, from: query.from ?? "", to: query.to ?? today };
  }
}
