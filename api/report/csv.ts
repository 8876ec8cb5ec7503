/**
 * `GET /api/report.csv` (issue 50 §2): one row per due dose and per as-needed dose taken,
 * `date,time,supplement,amount,unit,status,ticked_at`, RFC 4180 with CRLF, UTF-8 with a BOM
 * (Excel reads accents), cells a spreadsheet would run as formulas neutralised as the export
 * does (`csvField`).
 */
import { REPORT_CSV_HEADER, type ReportJson } from "../../src/lib/report";
import { csvField } from "../account/export";

export function reportCsv(report: Pick<ReportJson, "doses">): string {
  const lines = [REPORT_CSV_HEADER.join(",")];
  for (const d of report.doses) {
    lines.push([d.date, d.time, d.supplement, d.amount, d.unit, d.status, d.tickedAt].map(csvField).join(","));
  }
  return `\uFEFF${lines.join("\r\n")}\r\n`;
}

/** `stacktrack-report-2026-10-01-to-2026-10-30.csv` */
export const reportFileName = (from: string, to: string) => `stacktrack-report-${from}-to-${to}.csv`;
