/**
 * Public profile pages (`/{username}`) served from memory: the same for every visitor, so a
 * page is rendered once and kept until the profile changes (api/cache.ts says when).
 */
import { type Caches, PROFILE_USER_HEADER, serveCached, toCachedBody } from "../../api/cache";
import { isReservedUsername, PROFILE_PATH } from "../lib/constants";
import { isValidUsername } from "../lib/validation";

/** The username a path names, when it is a public profile page's path. */
export function profileName(path: string): string | undefined {
  const name = PROFILE_PATH.exec(path)?.[1];
  return name && isValidUsername(name) && !isReservedUsername(name) ? name : undefined;
}

/**
 * Serves `/{name}` from `caches` (at once, with the final headers: `security` is the server's
 * security headers), rendering (with `render`) and keeping the page when it has none.
 */
export function profilePages(
  caches: Caches,
  render: (request: Request) => Promise<Response>,
  security?: Record<string, string>,
) {
  async function fill(name: string, request: Request): Promise<Response> {
    const since = caches.begin();
    const response = await render(new Request(request.url, { headers: { accept: "text/html" } }));
    if ((response.status !== 200 && response.status !== 404) || response.headers.has("set-cookie")) return response;
    const body = await toCachedBody(response);
    const userId = response.headers.get(PROFILE_USER_HEADER);
    body.headers = body.headers.filter(([key]) => key !== PROFILE_USER_HEADER);
    caches.setProfile(name, "page", userId, body, since);
    return serveCached(body, request, security, true);
  }
  return function profilePage(name: string, request: Request): Response | Promise<Response> {
    const cached = caches.getProfile(name, "page");
    return cached ? serveCached(cached, request, security) : fill(name, request);
  };
}
