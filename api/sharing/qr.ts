/**
 * GET /{username}/qr.svg: a QR code of the profile's absolute URL (`PUBLIC_ORIGIN/{username}`,
 * the stored spelling), public and cacheable so it can be embedded anywhere; 404 for an
 * unknown, reserved or ill-formed name. Made with `qrcode`; declared keepable, tagged with the
 * name and its user (the host's cache, server/cache.ts).
 */
import { Hono } from "hono";
import { isReservedUsername } from "../../src/lib/reserved-usernames";
import { isValidUsername } from "../../src/lib/validation";
import { kept, profileTags } from "../lib/cache";
import type { AppEnv } from "../lib/env";
import { findPublicProfile } from "../profile/queries";

/** An hour: a renamed or deleted profile's code stops being served from caches soon after. */
const QR_CACHE_CONTROL = "public, max-age=3600";

/** The paths the host hands to the app for sharing: `/og/…` and `/{name}/qr.svg`. */
export const isSharingPath = (path: string) => path.startsWith("/og/") || /^\/[^/]+\/qr\.svg$/.test(path);

/** The QR code of `text` as an SVG document, 512 px with the standard 4-module quiet zone. */
export async function qrSvg(text: string): Promise<string> {
  // Loaded on the first code, not at start (issue 17: start-up time).
  const { default: QRCode } = await import("qrcode");
  return QRCode.toString(text, {
    type: "svg",
    errorCorrectionLevel: "M",
    margin: 4,
    width: 512,
    color: { dark: "#000000", light: "#ffffff" },
  });
}

export const qrRoutes = new Hono<AppEnv>().on(["GET", "HEAD"], "/:username/qr.svg", async (c) => {
  const ctx = c.get("ctx");
  const name = c.req.param("username");
  if (!isValidUsername(name) || isReservedUsername(name)) {
    return c.json({ message: "Profile not found" }, 404, { "Cache-Control": "no-cache" });
  }
  const profile = await findPublicProfile(ctx.database.db, name, ctx.config.origin);
  const response = profile?.user.username
    ? new Response(await qrSvg(`${ctx.config.origin}/${profile.user.username}`), {
        headers: { "Content-Type": "image/svg+xml", "Cache-Control": QR_CACHE_CONTROL },
      })
    : Response.json({ message: "Profile not found" }, { status: 404, headers: { "Cache-Control": "no-cache" } });
  return kept(response, { tags: profileTags(name, profile?.userId) });
});
