/**
 * `npm run check:imports` (part of `npm test`, before the build): the module graph of the
 * app's TypeScript (server.ts, server/, api/, db/, src/, scripts/, bench/) must have no import
 * cycle (type-only imports included), and the layers point one way (RULES): nothing in src/lib
 * (the shared leaf) or an island (code that ships to the browser) reaches api/, db/, server/ or
 * server.ts; api/ never reaches the host (server/, server.ts); db/ never reaches api/ or the
 * host. Directly or through any chain of imports. The graph is dpdm's; `.astro` files are not
 * parsed. Prints every finding and exits 1 when there is any.
 */
import { relative } from "node:path";
import { type DependencyTree, parseCircular, parseDependencyTree } from "dpdm";

const ROOT = new URL("..", import.meta.url).pathname;
const ENTRIES = [
  "server.ts",
  "server/**/*.{ts,mjs}",
  "api/**/*.ts",
  "db/**/*.ts",
  "src/**/*.{ts,tsx,mjs}",
  "scripts/**/*.ts",
  "bench/**/*.ts",
];

const HOST = [/^server\//, /^server\.ts$/];
/** Which modules (by path prefix) must never reach which, and why. */
const RULES: { from: string[]; never: RegExp[]; why: string }[] = [
  {
    from: ["src/lib/", "src/islands/"],
    never: [/^api\//, /^db\//, ...HOST],
    why: "src/lib and islands never reach the server side",
  },
  { from: ["api/"], never: HOST, why: "the API never reaches the host: server/ composes it, not the other way" },
  { from: ["db/"], never: [/^api\//, ...HOST], why: "the database layer never reaches the API or the host" },
];

export interface ImportFindings {
  cycles: string[][];
  forbidden: { from: string; to: string; why: string }[];
}

/**
 * Cycles and forbidden imports in a dpdm tree whose keys are paths relative to the root. An
 * import is forbidden when a module a rule covers reaches what the rule forbids directly or
 * through any chain of imports (an island importing a store that imports api/ counts): the
 * chain is given.
 */
export function findings(tree: DependencyTree): ImportFindings {
  const cycles = parseCircular(tree);
  const forbidden: ImportFindings["forbidden"] = [];
  const seen = new Set<string>(); // each offending import once, with the first chain that uses it
  for (const start of Object.keys(tree)) {
    for (const rule of RULES) {
      if (!rule.from.some((prefix) => start.startsWith(prefix))) continue;
      const via = new Map<string, string>([[start, ""]]);
      const queue = [start];
      while (queue.length > 0) {
        const current = queue.shift() as string;
        for (const dep of tree[current] ?? []) {
          const id = dep.id;
          if (!id || via.has(id)) continue;
          via.set(id, current);
          if (rule.never.some((never) => never.test(id))) {
            if (seen.has(`${current} ${id}`)) continue;
            seen.add(`${current} ${id}`);
            const chain = [id];
            for (let at = current; at; at = via.get(at) ?? "") chain.unshift(at);
            forbidden.push({ from: chain.slice(0, -1).join(" -> "), to: id, why: rule.why });
            continue;
          }
          queue.push(id);
        }
      }
    }
  }
  return { cycles, forbidden };
}

async function main() {
  const tree = await parseDependencyTree(ENTRIES, {
    context: ROOT,
    cwd: ROOT,
    tsconfig: `${ROOT}tsconfig.json`,
    transform: false, // keep type-only imports: they count
    skipDynamicImports: false,
  });
  // Only the project's own files, by their path from the root.
  const own: DependencyTree = {};
  for (const [id, deps] of Object.entries(tree)) {
    if (id.includes("node_modules")) continue;
    own[relative(ROOT, id)] =
      deps?.map((dep) => ({
        ...dep,
        id: dep.id && !dep.id.includes("node_modules") ? relative(ROOT, dep.id) : null,
      })) ?? null;
  }
  const { cycles, forbidden } = findings(own);
  const files = Object.keys(own).length;
  for (const cycle of cycles) console.log(`cycle: ${[...cycle, cycle[0]].join(" -> ")}`);
  for (const { from, to, why } of forbidden) console.log(`forbidden import: ${from} -> ${to} (${why})`);
  console.log(`${files} modules checked: ${cycles.length} import cycle(s), ${forbidden.length} forbidden import(s)`);
  if (cycles.length || forbidden.length) process.exit(1);
}

if (import.meta.main) await main();
