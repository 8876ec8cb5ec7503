/**
 * The dependency audit CI runs (.ci/run): `npm audit` against the lockfile. Gate: no high or
 * critical advisory in the production tree (`--omit=dev`), each listed with its paths. The
 * whole tree (dev tools too) is summarised, not gated. A registry without the advisory API
 * (405/404/501) means nothing was checked: a banner, and a pass unless AUDIT_REQUIRED=1.
 * docs/testing.md has the reasons.
 *
 *   bun tests/security/dependency-audit.ts                  # what CI runs
 *   bun tests/security/dependency-audit.ts --report f.json  # evaluate a saved `npm audit --json`
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";

export type Severity = "info" | "low" | "moderate" | "high" | "critical";
const RANK: Record<Severity, number> = { info: 0, low: 1, moderate: 2, high: 3, critical: 4 };

export interface Finding {
  name: string;
  severity: Severity;
  advisories: string[];
  paths: string[];
  fix: string;
}

export type Outcome =
  | { kind: "pass"; counts: Record<string, number> }
  | { kind: "fail"; findings: Finding[]; counts: Record<string, number> }
  | { kind: "unavailable"; reason: string }
  | { kind: "error"; reason: string };

interface Vulnerability {
  name: string;
  severity: Severity;
  via: (string | { title?: string; url?: string; source?: number; severity?: Severity })[];
  nodes?: string[];
  fixAvailable?: boolean | { name: string; version: string; isSemVerMajor?: boolean };
}

/** Reads `npm audit --json` output (or its error) and applies the threshold. */
export function evaluate(report: unknown, threshold: Severity = "high"): Outcome {
  const r = report as {
    vulnerabilities?: Record<string, Vulnerability>;
    metadata?: { vulnerabilities?: Record<string, number> };
    error?: { code?: string; summary?: string };
    statusCode?: number;
    message?: string;
  };
  if (!r || typeof r !== "object") return { kind: "error", reason: "npm audit printed no JSON" };
  const status = r.statusCode ?? Number(r.error?.code?.match(/^E(\d{3})$/)?.[1] ?? Number.NaN);
  if (!r.vulnerabilities) {
    const reason = r.message ?? r.error?.summary ?? JSON.stringify(r).slice(0, 300);
    if ([404, 405, 410, 501].includes(status) || r.error?.code === "ENOAUDIT") {
      return { kind: "unavailable", reason };
    }
    return { kind: "error", reason };
  }
  const counts = r.metadata?.vulnerabilities ?? {};
  const findings: Finding[] = [];
  for (const v of Object.values(r.vulnerabilities)) {
    if (RANK[v.severity] < RANK[threshold]) continue;
    const advisories = v.via.map((x) =>
      typeof x === "string" ? `via ${x}` : `${x.title ?? "advisory"} (${x.url ?? x.source})`,
    );
    const fix =
      typeof v.fixAvailable === "object"
        ? `fix: ${v.fixAvailable.name}@${v.fixAvailable.version}${v.fixAvailable.isSemVerMajor ? " (major)" : ""}`
        : v.fixAvailable
          ? "fix: npm audit fix"
          : "no fix available";
    findings.push({ name: v.name, severity: v.severity, advisories, paths: v.nodes ?? [], fix });
  }
  return findings.length ? { kind: "fail", findings, counts } : { kind: "pass", counts };
}

function runAudit(args: string[]): unknown {
  const root = join(import.meta.dir, "../..");
  const result = spawnSync("npm", ["audit", "--json", ...args], { cwd: root, encoding: "utf8", timeout: 180_000 });
  const text = result.stdout?.trim() ?? "";
  try {
    return JSON.parse(text);
  } catch {
    return { error: { summary: `${text.slice(0, 300)} ${result.stderr?.slice(0, 300) ?? ""}`.trim() } };
  }
}

const countsLine = (c: Record<string, number>) =>
  ["critical", "high", "moderate", "low", "info"].map((s) => `${c[s] ?? 0} ${s}`).join(", ");

function main(): number {
  const reportArg = process.argv.indexOf("--report");
  const gate =
    reportArg > 0
      ? evaluate(JSON.parse(readFileSync(process.argv[reportArg + 1] as string, "utf8")))
      : evaluate(runAudit(["--omit=dev"]));
  const required = process.env.AUDIT_REQUIRED === "1";
  switch (gate.kind) {
    case "pass":
      console.log(`dependency audit (production tree): no high or critical advisory (${countsLine(gate.counts)})`);
      break;
    case "fail":
      console.log(
        `dependency audit (production tree): ${gate.findings.length} package(s) with a high or critical advisory`,
      );
      for (const f of gate.findings) {
        console.log(`  ${f.severity.toUpperCase()} ${f.name} — ${f.fix}`);
        for (const a of f.advisories) console.log(`      ${a}`);
        for (const p of f.paths) console.log(`      at ${p}`);
      }
      return 1;
    case "unavailable":
      console.log("==================================================================");
      console.log(" DEPENDENCY AUDIT NOT PERFORMED: the npm registry this machine");
      console.log(" reaches does not offer the advisory API:");
      console.log(`   ${gate.reason}`);
      console.log(" No advisory was checked. Run `npm audit --omit=dev` where the");
      console.log(" public registry is reachable (AUDIT_REQUIRED=1 makes this fatal).");
      console.log("==================================================================");
      return required ? 1 : 0;
    case "error":
      console.log(`dependency audit failed: ${gate.reason}`);
      return 1;
  }
  if (reportArg < 0) {
    const whole = evaluate(runAudit([]), "low");
    if (whole.kind === "fail" || whole.kind === "pass") {
      console.log(`dependency audit (whole tree, dev tools included; not gated): ${countsLine(whole.counts)}`);
      if (whole.kind === "fail")
        for (const f of whole.findings) console.log(`  ${f.severity} ${f.name}: ${f.paths.join(", ")}`);
    }
  }
  return 0;
}

if (import.meta.main) process.exit(main());
