/**
 * The export's CSV (api/account/export.ts csvField, exportCsv) as units: a table of fields
 * (RFC 4180 quoting, spreadsheet formulas defused) and the file's shape. First among the
 * export's mutation tests (docs/mutation-testing.md): a mutant of the CSV fails here in milliseconds.
 */
import { describe, expect, test } from "bun:test";
import { getTableColumns } from "drizzle-orm";
import { csvField, exportCsv, WITHHELD_SUPPLEMENT_COLUMNS } from "../../api/account/export";
import { supplements } from "../../db/schema";
import { EXPORT_FORMAT } from "../../src/lib/account";

describe("CSV", () => {
  test.each<[string, unknown, string]>([
    ["null", null, ""],
    ["undefined", undefined, ""],
    ["a number", 2.5, "2.5"],
    ["a boolean", false, "false"],
    ["plain text", "Vitamin D3", "Vitamin D3"],
    ["a comma", "a,b", '"a,b"'],
    ["a quote", 'say "hi"', '"say ""hi"""'],
    ["a line feed", "two\nlines", '"two\nlines"'],
    ["a carriage return inside", "two\rlines", '"two\rlines"'],
    ["= first", "=1+1", "'=1+1"],
    ["+ first", "+1", "'+1"],
    ["- first", "-1", "'-1"],
    ["@ first", "@SUM(A1)", "'@SUM(A1)"],
    ["a tab first", "\tx", "'\tx"],
    ["a carriage return first", "\rx", '"\'\rx"'],
    ["a formula with a comma", '=HYPERLINK("x","y")', '"\'=HYPERLINK(""x"",""y"")"'],
    ["= later in the text", "a=b", "a=b"],
    ["a negative number", -3, "'-3"],
  ])("a field: %s", (_label, value, cell) => {
    expect(csvField(value)).toBe(cell);
  });

  test("the file: a BOM, the header row, one row per supplement, CRLF after each", () => {
    const doc = {
      format: EXPORT_FORMAT,
      exportedAt: "x",
      supplements: [
        {
          id: 1,
          name: "Zinc, chelated",
          quantityType: "Tablet(s)",
          schedule: {
            times: ["morning", "evening"],
            days: [1, 3],
            startsOn: "2026-11-02",
            endsOn: "2026-12-31",
            amounts: { morning: 2, evening: 1 },
          },
          doseAmount: 2,
          ingredients: [
            { nutrient: "vitamin-d", amount: 50, unit: "mcg", entered: { amount: 2000, unit: "IU" } },
            { name: "=Creatine", amount: 5, unit: "g", entered: { amount: 5, unit: "g" } },
          ],
        },
        { id: 2, name: "=cmd", quantityType: "Scoop(s)", schedule: null, doseAmount: null },
      ],
    };
    const header = Object.keys(getTableColumns(supplements)).filter(
      (k) => !WITHHELD_SUPPLEMENT_COLUMNS.has(k) && k !== "schedule" && k !== "doseAmount" && k !== "ingredients",
    );
    const text = exportCsv(doc);
    expect(text.startsWith("\uFEFF")).toBe(true);
    expect(text.endsWith("\r\n")).toBe(true);
    const lines = text.slice(1).split("\r\n");
    expect(lines).toHaveLength(4);
    // Issue 47: the ingredients as one readable column, what was typed in brackets.
    expect(lines[0]).toBe(
      [...header, "Times", "Days", "Amount", "Starts", "Ends", "Repeat", "Amounts", "Ingredients"].join(","),
    );
    const cell = (row: Record<string, unknown>, key: string) => csvField(row[key]);
    expect(lines[1]).toBe(
      [
        ...header.map((k) => cell(doc.supplements[0] as Record<string, unknown>, k)),
        "Morning; Evening",
        "Mon; Wed",
        "2 Tablet(s)",
        "2026-11-02",
        "2026-12-31",
        "",
        "Morning 2; Evening 1",
        "Vitamin D 50 mcg (2000 IU); =Creatine 5 g",
      ].join(","),
    );
    expect(lines[1]).toContain('"Zinc, chelated"');
    expect(lines[2]).toBe(
      [
        ...header.map((k) => cell(doc.supplements[1] as Record<string, unknown>, k)),
        "As needed",
        "",
        "",
        "",
        "",
        "",
        "",
        "",
      ].join(","),
    );
    expect(lines[2]).toContain("'=cmd");
    expect(lines[3]).toBe("");
  });

  test("no supplements (or no section): the header row alone", () => {
    for (const doc of [
      { format: "f", exportedAt: "x", supplements: [] },
      { format: "f", exportedAt: "x" },
    ]) {
      const text = exportCsv(doc);
      expect(text.slice(1).split("\r\n")).toHaveLength(2);
      expect(text.slice(1).split("\r\n")[1]).toBe("");
    }
  });
});
