/**
 * `npm run dev`: the same host as production (server/host.ts: the response cache, its 304s,
 * views, clicks and the public profile limit) in front of the Hono app, with Astro's dev server
 * (Vite, hot reload) rendering the pages in place of the built ones. Astro listens on a private
 * port on 127.0.0.1; only the host is reached from the browser (PORT, 4321 by default), and
 * Vite's hot-reload socket goes to Astro's port directly. Decision: docs/decisions/042-one-request-path-in-development.md.
 */
import { dev } from "astro";
import { createApp } from "../api/app";
import { clientAddress } from "../api/lib/client-address";
import { initContext } from "../api/lib/context";
import type { HostEnv } from "../api/lib/env";
import { log } from "../api/lib/log";
import { securityHeadersOf, withSecurityHeaders } from "../api/lib/security";
import { createHost } from "../server/host";
import { badHost, requestUrl } from "../server/request-url";

const ctx = await initContext();
const { config } = ctx;
const astroPort = config.PORT + 1;
const astro = await dev({
  root: new URL("..", import.meta.url).pathname,
  logLevel: "warn",
  server: { host: "127.0.0.1", port: astroPort },
  vite: { server: { strictPort: true, ws: { clientPort: astroPort } } },
});
const astroOrigin = `http://127.0.0.1:${astroPort}`;

/** A page from Astro's dev server: the request as the browser sent it, to Astro's port. */
async function render(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const answer = await fetch(`${astroOrigin}${url.pathname}${url.search}`, {
    method: request.method,
    headers: request.headers,
    body: request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer(),
    redirect: "manual",
    decompress: false,
  });
  return new Response(answer.body, answer);
}

const headers = securityHeadersOf(config);
const dispatch = createHost({ ctx, api: createApp(ctx), render, security: headers });
const server = Bun.serve({
  hostname: config.HOST,
  port: config.PORT,
  idleTimeout: 120, // Vite's first compile of a page can take longer than Bun's default 10 s
  async fetch(request, bun) {
    const url = requestUrl(request);
    if (!url) return withSecurityHeaders(badHost(), headers);
    const address = () =>
      clientAddress({
        forwardedFor: request.headers.get("x-forwarded-for"),
        socketAddress: () => bun.requestIP(request)?.address,
        hops: config.TRUST_PROXY,
      });
    const env: HostEnv = { server: bun, clientAddress: address, security: headers };
    return withSecurityHeaders(await dispatch(request, url, env), headers);
  },
});
log.info(`development: http://localhost:${server.port} (pages from Astro's dev server on ${astroOrigin})`);

const stop = async () => {
  server.stop(true);
  await astro.stop();
  await ctx.database.close();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
