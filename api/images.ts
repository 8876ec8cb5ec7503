/**
 * Profile images. POST /api/upload/profile-image takes a multipart `profileImage`,
 * checks the bytes (not the declared type), re-encodes to a square WebP without
 * metadata and stores it in Postgres; GET /images/:id.webp serves it forever-cacheable.
 */
import { createHash } from "node:crypto";
import { and, eq, lt, ne } from "drizzle-orm";
import { Hono } from "hono";
import { images } from "../db/schema";
import { PROFILE_IMAGE_MAX_BYTES } from "../src/lib/constants";
import { MESSAGES } from "../src/lib/validation";
import { type AppEnv, requireUser } from "./env";
import { badRequest, HttpError, notFound } from "./http";
import { hit, LIMITS } from "./rate-limit";

const ACCEPTED_FORMATS = new Set(["jpeg", "png", "webp", "gif", "heif"]);
/** 40 megapixels: enough for any phone photo, far below a decompression bomb. */
const MAX_INPUT_PIXELS = 40_000_000;
const AVATAR_SIZE = 512;
/** Room for the multipart envelope around a 5 MB file. */
const MULTIPART_OVERHEAD = 64 * 1024;

const tooLarge = () => new HttpError(413, MESSAGES.imageSize, { profileImage: [MESSAGES.imageSize] });
const notAnImage = () => new HttpError(415, MESSAGES.imageType, { profileImage: [MESSAGES.imageType] });

/** Decodes, orients, crops to a square and re-encodes; metadata (EXIF, GPS) is not carried over. */
export async function toAvatarWebp(input: Uint8Array): Promise<Uint8Array> {
  const { default: sharp } = await import("sharp");
  let meta: import("sharp").Metadata;
  try {
    meta = await sharp(input, { limitInputPixels: MAX_INPUT_PIXELS, failOn: "error" }).metadata();
  } catch {
    throw notAnImage();
  }
  if (!meta.format || !ACCEPTED_FORMATS.has(meta.format)) throw notAnImage();
  if (meta.format === "heif" && meta.compression !== "av1") throw notAnImage(); // AVIF only
  if (!meta.width || !meta.height || meta.width * meta.height > MAX_INPUT_PIXELS) throw notAnImage();
  try {
    const output = await sharp(input, { limitInputPixels: MAX_INPUT_PIXELS, failOn: "error", animated: false })
      .rotate()
      .resize(AVATAR_SIZE, AVATAR_SIZE, { fit: "cover", position: "attention" })
      .webp({ quality: 82, effort: 4 })
      .toBuffer();
    return new Uint8Array(output);
  } catch {
    throw notAnImage();
  }
}

export const uploadRoutes = new Hono<AppEnv>().post("/upload/profile-image", async (c) => {
  const user = await requireUser(c);
  const ctx = c.get("ctx");
  // Refuse a large body from its declared size, before reading any of it.
  const declared = Number(c.req.header("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > PROFILE_IMAGE_MAX_BYTES + MULTIPART_OVERHEAD) throw tooLarge();
  const type = c.req.header("content-type") ?? "";
  if (!type.toLowerCase().startsWith("multipart/form-data")) {
    throw badRequest("Send the image as multipart/form-data with a profileImage field", {
      profileImage: ["Please choose an image to upload"],
    });
  }
  await hit(ctx, `upload:${user.id}`, LIMITS.upload);

  let form: FormData;
  try {
    form = await c.req.raw.formData();
  } catch {
    throw badRequest("The upload could not be read. Please try again.", {
      profileImage: ["Please choose an image to upload"],
    });
  }
  const file = form.get("profileImage");
  if (!(file instanceof Blob)) {
    throw badRequest("Please choose an image to upload", { profileImage: ["Please choose an image to upload"] });
  }
  if (file.size > PROFILE_IMAGE_MAX_BYTES) throw tooLarge();
  if (file.size === 0) throw notAnImage();

  const webp = await toAvatarWebp(new Uint8Array(await file.arrayBuffer()));
  const id = createHash("sha256").update(webp).digest("base64url").slice(0, 32);
  const db = ctx.database.db;
  await db
    .insert(images)
    .values({ id, userId: user.id, contentType: "image/webp", data: webp, byteSize: webp.byteLength })
    .onConflictDoNothing();
  // Uploads that never became this user's avatar are cleared after an hour.
  const current = user.profileImageUrl?.match(/^\/images\/([A-Za-z0-9_-]+)\.webp$/)?.[1] ?? "";
  await db
    .delete(images)
    .where(
      and(
        eq(images.userId, user.id),
        ne(images.id, id),
        ne(images.id, current),
        lt(images.createdAt, new Date(Date.now() - 60 * 60 * 1000)),
      ),
    );
  return c.json({ imageUrl: `/images/${id}.webp` }, 201);
});

/** Removes the user's stored images other than `keepUrl` (after the avatar changes). */
export async function pruneImages(db: import("../db/client").Db, userId: string, keepUrl: string | null) {
  const keep = keepUrl?.match(/^\/images\/([A-Za-z0-9_-]+)\.webp$/)?.[1] ?? "";
  await db.delete(images).where(and(eq(images.userId, userId), ne(images.id, keep)));
}

export const imageRoutes = new Hono<AppEnv>().on(["GET", "HEAD"], "/:file", async (c) => {
  const match = c.req.param("file").match(/^([A-Za-z0-9_-]{16,64})\.webp$/);
  if (!match?.[1]) throw notFound("Image not found");
  const id = match[1];
  const etag = `"${id}"`;
  const cacheHeaders = {
    "Cache-Control": "public, max-age=31536000, immutable",
    ETag: etag,
  };
  if (c.req.header("if-none-match") === etag) return c.body(null, 304, cacheHeaders);
  const [row] = await c
    .get("ctx")
    .database.db.select({ data: images.data, contentType: images.contentType })
    .from(images)
    .where(eq(images.id, id))
    .limit(1);
  if (!row) throw notFound("Image not found");
  return new Response(c.req.method === "HEAD" ? null : new Uint8Array(row.data), {
    headers: {
      ...cacheHeaders,
      "Content-Type": row.contentType,
      "Content-Length": String(row.data.byteLength),
    },
  });
});
