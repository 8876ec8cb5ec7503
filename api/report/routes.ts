/**
 * The report for the doctor (issue 50 §2), the signed-in user's own:
 *   GET /api/report?from=&to=&supplements=id,id       the report as JSON (what /report shows)
 *   GET /api/report.csv?from=&to=&supplements=id,id   the same doses as CSV, a download
 * `from`/`to` default to the last 30 days ending today (the user's zone); at most 366 days, not
 * in the future; bad input is a 400 naming the field.
 */
import { Hono } from "hono";
import { type AppEnv, requireUser } from "../lib/env";
import { userToday } from "../tracking";
import { reportCsv, reportFileName } from "./csv";
import { readReport, reportRange } from "./read";

function reportOf(c: import("hono").Context<AppEnv>, user: { id: string; timeZone: string | null }) {
  const today = userToday(user);
  const range = reportRange(
    { from: c.req.query("from"), to: c.req.query("to"), supplements: c.req.query("supplements") },
    today,
  );
  return readReport(c.get("ctx").database.db, user, range, today);
}

export const reportRoutes = new Hono<AppEnv>()
  .get("/report.csv", async (c) => {
    const user = await requireUser(c);
    const report = await reportOf(c, user);
    return c.body(reportCsv(report), 200, {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="${reportFileName(report.from, report.to)}"`,
      "Cache-Control": "no-store",
    });
  })
  .get("/report", async (c) => {
    const user = await requireUser(c);
    const report = await reportOf(c, user);
    c.header("Cache-Control", "no-store");
    return c.json(report);
  });
