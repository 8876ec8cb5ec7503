const HOST = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+)(:\d{1,5})?$/;
/** The last Host header that passed: nearly every request repeats it, so the pattern runs once. */
let lastGoodHost: string | undefined;

/**
 * The request's URL, or undefined when it has no usable host: an HTTP/1.0 request without
 * Host, an empty or malformed Host header, or an absolute-form target whose authority is
 * not a host. Such a request is answered 400 (`badHost`, never a 500), with the usual headers.
 */
export function requestUrl(request: Request): URL | undefined {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return undefined;
  }
  if (!url.hostname || (url.protocol !== "http:" && url.protocol !== "https:")) return undefined;
  const host = request.headers.get("host");
  if (host !== null && host !== lastGoodHost) {
    if (!HOST.test(host)) return undefined;
    lastGoodHost = host;
  }
  return url;
}

export const badHost = () =>
  Response.json(
    { message: "Bad request: the Host header is missing or malformed" },
    { status: 400, headers: { Connection: "close", "Cache-Control": "no-store" } },
  );
