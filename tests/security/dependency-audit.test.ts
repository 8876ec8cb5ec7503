/** The audit gate's reading of `npm audit --json`: what fails CI, what is only reported. */
import { describe, expect, test } from "bun:test";
import { evaluate } from "./dependency-audit";

const vulnerable = (severity: string) => ({
  auditReportVersion: 2,
  vulnerabilities: {
    "some-lib": {
      name: "some-lib",
      severity,
      isDirect: false,
      via: [
        {
          source: 1,
          title: "Prototype pollution in some-lib",
          url: "https://github.com/advisories/GHSA-xxxx",
          severity,
        },
      ],
      effects: ["parent-lib"],
      range: "<1.2.3",
      nodes: ["node_modules/parent-lib/node_modules/some-lib"],
      fixAvailable: { name: "parent-lib", version: "2.0.0", isSemVerMajor: true },
    },
    "parent-lib": {
      name: "parent-lib",
      severity,
      via: ["some-lib"],
      nodes: ["node_modules/parent-lib"],
      fixAvailable: true,
    },
  },
  metadata: { vulnerabilities: { info: 0, low: 0, moderate: 0, high: 2, critical: 0, total: 2 } },
});

describe("dependency audit gate", () => {
  test("a high advisory fails, naming the package, the advisory and where it is installed", () => {
    const outcome = evaluate(vulnerable("high"));
    expect(outcome.kind).toBe("fail");
    if (outcome.kind !== "fail") return;
    const lib = outcome.findings.find((f) => f.name === "some-lib");
    expect(lib?.paths).toEqual(["node_modules/parent-lib/node_modules/some-lib"]);
    expect(lib?.advisories[0]).toContain("GHSA-xxxx");
    expect(lib?.fix).toContain("parent-lib@2.0.0");
  });

  test("a critical one fails too; moderate and low pass (reported, not gated)", () => {
    expect(evaluate(vulnerable("critical")).kind).toBe("fail");
    expect(evaluate(vulnerable("moderate")).kind).toBe("pass");
    expect(evaluate(vulnerable("low")).kind).toBe("pass");
  });

  test("a clean report passes", () => {
    expect(evaluate({ vulnerabilities: {}, metadata: { vulnerabilities: { total: 0 } } }).kind).toBe("pass");
  });

  test("a registry without the advisory API is 'unavailable' (said loudly), any other failure an error", () => {
    expect(
      evaluate({
        message: "405 Method Not Allowed - POST https://registry.npmjs.org/-/npm/v1/security/advisories/bulk",
        statusCode: 405,
      }).kind,
    ).toBe("unavailable");
    expect(evaluate({ error: { code: "ENOAUDIT", summary: "no audit" } }).kind).toBe("unavailable");
    expect(evaluate({ error: { code: "ECONNRESET", summary: "socket hang up" } }).kind).toBe("error");
    expect(evaluate(null).kind).toBe("error");
  });
});
