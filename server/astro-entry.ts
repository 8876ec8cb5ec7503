// The built server entry (dist/server/entry.mjs): Astro's renderer as a fetch-style function.
import { createApp } from "astro/app/entrypoint";

const app = createApp();

export function render(request: Request, locals?: App.Locals): Promise<Response> {
  return app.render(request, { locals, addCookieHeader: true });
}
