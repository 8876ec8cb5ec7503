// Under `astro dev` every /api request arrives here and goes to the same Hono app
// that server.ts calls directly in production.
import type { APIRoute } from "astro";
import { getApi } from "../../../api/index";

export const prerender = false;

export const ALL: APIRoute = async ({ request }) => (await getApi()).fetch(request);
