// Under `astro dev` profile images are served by the same Hono app as in production.
import type { APIRoute } from "astro";
import { getApi } from "../../../api/index";

export const prerender = false;

export const ALL: APIRoute = async ({ request }) => (await getApi()).fetch(request);
