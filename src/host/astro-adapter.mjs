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
    },
  };
}
