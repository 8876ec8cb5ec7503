/**
 * The import-graph check of `npm test` (scripts/check-imports.ts) on small graphs: each case
 * is a graph and what the check must find in it (a cycle, a leaf reaching the server side
 * directly or through other modules), or that it finds nothing.
 */
import { describe, expect, test } from "bun:test";
import type { DependencyTree } from "dpdm";
import { findings } from "../../scripts/check-imports";

/** A dpdm tree from `{ file: [imports] }`. */
function graph(edges: Record<string, string[]>): DependencyTree {
  const tree: DependencyTree = {};
  for (const [issuer, deps] of Object.entries(edges)) {
    tree[issuer] = deps.map((id) => ({ issuer, request: id, kind: 1 as never, id }));
    for (const id of deps) tree[id] ??= [];
  }
  return tree;
}

const cases: { name: string; edges: Record<string, string[]>; cycles: number; forbidden: string[] }[] = [
  {
    name: "a clean graph",
    edges: { "server.ts": ["api/app.ts"], "api/app.ts": ["api/lib/types.ts", "src/lib/constants.ts"] },
    cycles: 0,
    forbidden: [],
  },
  {
    name: "the cycle of issue 13",
    edges: {
      "api/auth/auth.ts": ["api/billing.ts"],
      "api/billing.ts": ["api/lib/context.ts"],
      "api/lib/context.ts": ["api/auth/auth.ts"],
    },
    cycles: 1,
    forbidden: [],
  },
  {
    name: "a module importing itself back through one other",
    edges: { "a.ts": ["b.ts"], "b.ts": ["a.ts"] },
    cycles: 1,
    forbidden: [],
  },
  {
    name: "src/lib importing api/",
    edges: { "src/lib/types.ts": ["api/auth/auth.ts"] },
    cycles: 0,
    forbidden: ["api/auth/auth.ts"],
  },
  {
    name: "src/lib importing db/",
    edges: { "src/lib/x.ts": ["db/schema.ts"] },
    cycles: 0,
    forbidden: ["db/schema.ts"],
  },
  {
    name: "an island importing api/",
    edges: { "src/islands/A.tsx": ["api/lib/errors.ts"] },
    cycles: 0,
    forbidden: ["api/lib/errors.ts"],
  },
  {
    name: "an island importing the host",
    edges: { "src/islands/A.tsx": ["server/static.ts"] },
    cycles: 0,
    forbidden: ["server/static.ts"],
  },
  {
    name: "api/ importing the host (server/)",
    edges: { "api/app.ts": ["server/errors.ts"] },
    cycles: 0,
    forbidden: ["server/errors.ts"],
  },
  {
    name: "api/ reaching server.ts through a helper",
    edges: { "api/app.ts": ["api/lib/x.ts"], "api/lib/x.ts": ["server.ts"] },
    cycles: 0,
    forbidden: ["server.ts"],
  },
  {
    name: "db/ importing api/",
    edges: { "db/client.ts": ["api/lib/config.ts"] },
    cycles: 0,
    forbidden: ["api/lib/config.ts"],
  },
  {
    name: "db/ importing the host",
    edges: { "db/client.ts": ["server/pglite-early.ts"] },
    cycles: 0,
    forbidden: ["server/pglite-early.ts"],
  },
  {
    name: "the host importing api/ and db/ (allowed: it composes them)",
    edges: { "server/host.ts": ["api/app.ts"], "server.ts": ["server/host.ts", "db/client.ts"] },
    cycles: 0,
    forbidden: [],
  },
  {
    name: "an island reaching db/ through a store",
    edges: { "src/islands/A.tsx": ["src/stores/user.ts"], "src/stores/user.ts": ["db/schema.ts"] },
    cycles: 0,
    forbidden: ["db/schema.ts"],
  },
  {
    name: "an island importing src/lib and a component",
    edges: {
      "src/islands/A.tsx": ["src/lib/api.ts", "src/components/Modal.tsx"],
      "src/lib/api.ts": ["src/lib/types.ts"],
    },
    cycles: 0,
    forbidden: [],
  },
  {
    name: "a page helper importing api/ (allowed)",
    edges: { "src/page-data/queries.ts": ["api/lib/context.ts"] },
    cycles: 0,
    forbidden: [],
  },
];

describe("scripts/check-imports.ts findings()", () => {
  test.each(cases)("$name", ({ edges, cycles, forbidden }) => {
    const found = findings(graph(edges));
    expect(found.cycles.length).toBe(cycles);
    expect(found.forbidden.map((f) => f.to)).toEqual(forbidden);
  });
});
