/**
 * Profile images. POST /api/upload/profile-image takes a multipart `profileImage`,
 * checks the bytes (not the declared type), re-encodes to a square WebP without
 * metadata and stores it in Postgres; GET /images/:id.webp serves it forever-cacheable, from
 * memory once read (the host's response cache, server/cache.ts).
 */
import { createHash } from "node:crypto";
import { and, eq, lt, ne, type SQL, sql } from "drizzle-orm";
import { Hono } from "hono";
import type { Db } from "../../db/client";
import { rowsOf } from "../../db/rows";
import { images, users } from "../../db/schema";
import { MESSAGES, PROFILE_MESSAGES } from "../../src/lib/account-messages";
import { IMAGE_FILE, imagePath, PROFILE_IMAGE_MAX_BYTES } from "../../src/lib/constants";
import type { ImageUploadAnswer } from "../../src/lib/types";
import { type Caches, CHANGES_CHANNEL, kept, tags } from "../lib/cache";
import { type AppEnv, requireUser } from "../lib/env";
import { badRequest, HttpError, notFound } from "../lib/http";
import { hit, LIMITS } from "../lib/rate-limit";
import { loadSharp } from "../lib/sharp";

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
  const sharp = await loadSharp();
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
    throw badRequest(PROFILE_MESSAGES.notMultipart, {
      profileImage: [PROFILE_MESSAGES.chooseImage],
    });
  }
  await hit(ctx, `upload:${user.id}`, LIMITS.upload);

  let form: FormData;
  try {
    form = await c.req.raw.formData();
  } catch {
    throw badRequest(PROFILE_MESSAGES.unreadableUpload, {
      profileImage: [PROFILE_MESSAGES.chooseImage],
    });
  }
  const file = form.get("profileImage");
  if (!(file instanceof Blob)) {
    throw badRequest(PROFILE_MESSAGES.chooseImage, { profileImage: [PROFILE_MESSAGES.chooseImage] });
  }
  if (file.size > PROFILE_IMAGE_MAX_BYTES) throw tooLarge();
  if (file.size === 0) throw notAnImage();

  const webp = await toAvatarWebp(new Uint8Array(await file.arrayBuffer()));
  const id = imageId(user.id, webp);
  const db = ctx.database.db;
  await db
    .insert(images)
    .values({ id, userId: user.id, contentType: "image/webp", data: webp, byteSize: webp.byteLength })
    .onConflictDoNothing();
  // Uploads that never became this user's avatar are cleared after an hour.
  await deleteUnshown(
    db,
    and(eq(images.userId, user.id), ne(images.id, id), lt(images.createdAt, new Date(Date.now() - 60 * 60 * 1000))),
    ctx.caches,
  );
  return c.json({ imageUrl: imagePath(id) } satisfies ImageUploadAnswer, 201);
});

/**
 * An image's id: the hash of its owner and its bytes. Two users who upload the same picture
 * get two rows, so neither can delete the other's (docs/features.md, "Profile images"). Rows stored
 * before (migration 0004), keyed by the bytes alone, keep their ids and URLs.
 */
export function imageId(userId: string, webp: Uint8Array): string {
  return createHash("sha256").update(userId).update("\u0000").update(webp).digest("base64url").slice(0, 32);
}

/**
 * No user shows the row's URL as their avatar, read by the deleting statement itself (not from
 * a remembered user row, which may be a moment old): an image is never deleted while anyone
 * points at it. (Every user who shows /images/<id>.webp also owns a row with that id: the
 * ownership check on every write, and migration 0004 for older data.) Hash index on
 * users.profile_image_url (migration 0004).
 */
const notPointedAt = sql`not exists (select 1 from ${users} where ${users.profileImageUrl} = '/images/' || ${images.id} || '.webp')`;

/**
 * Deletes the images `which` selects, by id, unless someone shows them. By id: a picture
 * stored before migration 0004 may have a row for each user who showed it, and the last of them
 * to stop showing it takes every copy with it. The same statement announces each deleted id on
 * the change channel (delivered when it commits), so every instance stops serving it from
 * memory (server/cache.ts); this instance drops it before the caller answers.
 */
async function deleteUnshown(db: Db, which: SQL | undefined, cache?: Caches) {
  const result = await db.execute(sql`
    with deleted as (
      delete from ${images}
      where ${images.id} in (select ${images.id} from ${images} where ${which ?? sql`false`}) and ${notPointedAt}
      returning ${images.id} as id
    )
    select d.id, pg_notify(${CHANGES_CHANNEL}, json_build_object('i', d.id)::text)
    from (select distinct id from deleted) d`);
  for (const row of rowsOf<{ id: string }>(result)) cache?.dropImage(row.id);
}

/** Removes the user's stored images nobody shows any more (after the avatar changes). */
export async function pruneImages(db: Db, userId: string, cache?: Caches) {
  await deleteUnshown(db, eq(images.userId, userId), cache);
}

const IMAGE_CACHE_CONTROL = "public, max-age=31536000, immutable";

/**
 * GET /images/{id}.webp: the bytes, forever cacheable, the id as a strong ETag. Declared
 * keepable (the host's cache holds it until the image is deleted, or its owner), so a warm
 * read sends no statement.
 */
export const imageRoutes = new Hono<AppEnv>().on(["GET", "HEAD"], "/:file", async (c) => {
  const id = IMAGE_FILE.exec(c.req.param("file"))?.[1];
  if (!id) throw notFound(PROFILE_MESSAGES.imageNotFound);
  const [row] = await c
    .get("ctx")
    .database.db.select({ data: images.data, contentType: images.contentType, userId: images.userId })
    .from(images)
    .where(eq(images.id, id))
    .limit(1);
  if (!row) throw notFound(PROFILE_MESSAGES.imageNotFound);
  const headers = { "Content-Type": row.contentType, "Cache-Control": IMAGE_CACHE_CONTROL, ETag: `"${id}"` };
  return kept(new Response(new Uint8Array(row.data), { headers }), {
    tags: [tags.image(id), tags.deleted(row.userId)],
  });
});
