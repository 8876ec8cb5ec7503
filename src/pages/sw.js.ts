/**
 * /sw.js, the service worker (issue 39; src/service-worker/sw.js). Served here rather than as a
 * static file because a worker's fetches obey its own script's Content-Security-Policy: static
 * files get `default-src 'none'`, which would stop 'Mark all taken' from reaching the API.
 * `no-cache`: a new deploy's worker is fetched on the next load.
 */
import source from "../service-worker/sw.js?raw";

export const prerender = false;

const HEADERS = {
  "Content-Type": "text/javascript; charset=utf-8",
  "Content-Security-Policy": "default-src 'none'; connect-src 'self'; img-src 'self'",
  "Cache-Control": "no-cache",
};

export const GET = () => new Response(source, { headers: HEADERS });
