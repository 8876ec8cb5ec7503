// Under `astro dev` /go/{id} is served by the same Hono app as in production (api/go.ts); a 404
// is the site's 404 page, as server.ts answers it.
import type { APIRoute } from "astro";
import { getApi } from "../../../api/index";

export const prerender = false;

export const ALL: APIRoute = async ({ request, rewrite }) => {
  const response = await (await getApi()).fetch(request);
  return response.status === 404 ? rewrite("/404") : response;
};
