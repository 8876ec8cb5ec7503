import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

// A minimal Astro adapter for the app's own Bun server (server.ts): the built
// server entry exports `render(request, locals)`, and server.ts decides what reaches it.
export default function stacktrackAdapter() {
  return {
    name: "stacktrack-bun",
    hooks: {
      "astro:config:done": ({ setAdapter }) => {
        setAdapter({
          name: "stacktrack-bun",
          entrypointResolution: "auto",
          serverEntrypoint: new URL("./astro-entry.ts", import.meta.url),
          supportedAstroFeatures: {
            staticOutput: "stable",
            serverOutput: "stable",
            hybridOutput: "stable",
            sharpImageService: "stable",
          },
        });
      },
      // Issue 17: the migrated PGlite database an empty DATA_DIR starts from (scripts/pglite-template.ts).
      "astro:build:done": ({ logger }) => {
        const root = fileURLToPath(new URL("..", import.meta.url));
        const bun = process.versions.bun ? process.execPath : "bun";
        const done = spawnSync(bun, ["scripts/pglite-template.ts", join(root, "dist/pglite-template")], {
          cwd: root,
          encoding: "utf8",
        });
        if (done.status !== 0) {
          throw new Error(`scripts/pglite-template.ts failed:\n${done.stdout ?? ""}${done.stderr ?? ""}`);
        }
        logger.info(done.stdout.trim());
      },
    },
  };
}
