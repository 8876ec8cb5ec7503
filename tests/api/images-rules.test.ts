/**
 * api/images/routes.ts, its rules one by one on one API: which bytes are an image, the avatar made
 * of them, the size refusals (the declared one before the body is read), the upload limit,
 * clean-up of old uploads, and how a stored image is served.
 * Small and fast on purpose: StrykerJS runs it once per mutant of the module (docs/mutation-testing.md).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import sharp from "sharp";
import { pruneImages, toAvatarWebp } from "../../api/images/routes";
import { HttpError } from "../../api/lib/http";
import { images } from "../../db/schema";
import { migratedDatabase } from "../support/pglite-template";
import { startApi, type TestApi } from "../support/server";
import { type ApiUser, createUser } from "../support/users";

let api: TestApi;
let user: ApiUser;

beforeAll(async () => {
  api = await startApi({}, { database: await migratedDatabase() });
  user = await createUser(api);
});

afterAll(async () => {
  await api?.close();
});

const IMAGE_TYPE = {
  message: "Please select a valid image file",
  errors: { profileImage: ["Please select a valid image file"] },
};
const IMAGE_SIZE = {
  message: "Image must be smaller than 5MB",
  errors: { profileImage: ["Image must be smaller than 5MB"] },
};

/** A small picture with some structure, in the given format. */
function picture(width: number, height: number) {
  const pixels = Buffer.alloc(width * height * 3);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 31) % 251;
  return sharp(pixels, { raw: { width, height, channels: 3 } });
}

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** The PNG signature, an IHDR of the given size (8-bit RGB) and IEND: no image data. */
function pngHeader(width: number, height: number): Uint8Array {
  const chunk = (type: string, data: Uint8Array) => {
    const body = new Uint8Array(4 + data.length);
    body.set(new TextEncoder().encode(type));
    body.set(data, 4);
    const out = new Uint8Array(12 + data.length);
    const view = new DataView(out.buffer);
    view.setUint32(0, data.length);
    out.set(body, 4);
    view.setUint32(8 + data.length, crc32(body));
    return out;
  };
  const ihdr = new Uint8Array(13);
  const view = new DataView(ihdr.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const parts = [
    new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk("IHDR", ihdr),
    chunk("IEND", new Uint8Array()),
  ];
  return new Uint8Array(Buffer.concat(parts));
}

async function refusedWith(call: Promise<unknown>): Promise<HttpError> {
  try {
    await call;
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError);
    return error as HttpError;
  }
  throw new Error("not refused");
}

describe("toAvatarWebp", () => {
  test.each([
    ["jpeg", () => picture(40, 30).jpeg().toBuffer()],
    ["png", () => picture(30, 40).png().toBuffer()],
    ["webp", () => picture(20, 20).webp().toBuffer()],
    ["gif", () => picture(20, 10).gif().toBuffer()],
    ["avif", () => picture(16, 16).avif().toBuffer()],
  ])("%s becomes a 512×512 WebP without metadata", async (_format, make) => {
    const out = await toAvatarWebp(new Uint8Array(await make()));
    const meta = await sharp(out).metadata();
    expect(meta).toMatchObject({ format: "webp", width: 512, height: 512 });
    expect(meta.exif).toBeUndefined();
    expect(meta.pages ?? 1).toBe(1);
  });

  test.each([
    ["text", () => Promise.resolve(Buffer.from("not an image at all"))],
    ["tiff", () => picture(10, 10).tiff().toBuffer()],
    ["heic", () => picture(16, 16).heif({ compression: "hevc" }).toBuffer()],
    ["svg", () => Promise.resolve(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'))],
    ["truncated png", async () => (await picture(64, 64).png().toBuffer()).subarray(0, 100)],
  ])("%s is refused as not an image (415)", async (_name, make) => {
    let input: Buffer;
    try {
      input = await make();
    } catch {
      return; // this libvips cannot write the format: nothing to check
    }
    const error = await refusedWith(toAvatarWebp(new Uint8Array(input)));
    expect(error.status).toBe(415);
    expect({ message: error.message, errors: error.errors }).toEqual(IMAGE_TYPE);
  });

  test("a header claiming more than 40 megapixels is refused", async () => {
    // A PNG header that claims 8000×5001 (40,008,000 pixels) and carries no pixels at all.
    const error = await refusedWith(toAvatarWebp(pngHeader(8000, 5001)));
    expect(error.status).toBe(415);
    expect({ message: error.message, errors: error.errors }).toEqual(IMAGE_TYPE);
  });
});

/** Sends a multipart upload over HTTP. */
function upload(body: BodyInit, headers: Record<string, string> = {}, as: ApiUser = user) {
  return api.fetch("/api/upload/profile-image", { method: "POST", headers: { cookie: as.cookie, ...headers }, body });
}

function form(file: Blob | string, field = "profileImage") {
  const f = new FormData();
  f.append(field, file);
  return f;
}

const stored = async () =>
  (await api.ctx.database.db.select().from(images).where(eq(images.userId, user.id))).sort((a, b) =>
    a.id.localeCompare(b.id),
  );

describe("POST /api/upload/profile-image", () => {
  test("stores the WebP under the hash of its owner and content and answers its URL", async () => {
    await api.ctx.database.db.delete(images);
    const png = await picture(30, 30).png().toBuffer();
    const res = await upload(form(new File([png], "a.png", { type: "image/png" })));
    expect(res.status).toBe(201);
    const { imageUrl } = (await res.json()) as { imageUrl: string };
    const [row] = await stored();
    if (!row) throw new Error("nothing stored");
    const hash = new Bun.CryptoHasher("sha256")
      .update(user.id)
      .update("\u0000")
      .update(row.data)
      .digest("base64url")
      .slice(0, 32);
    expect(row.id).toBe(hash);
    expect(imageUrl).toBe(`/images/${hash}.webp`);
    expect(row.contentType).toBe("image/webp");
    expect(row.byteSize).toBe(row.data.byteLength);
    // The same picture again is the same image, stored once.
    const again = await upload(form(new File([png], "b.png", { type: "image/png" })));
    expect(((await again.json()) as { imageUrl: string }).imageUrl).toBe(imageUrl);
    expect(await stored()).toHaveLength(1);
  });

  test("refusals: no multipart, no file, an empty file, a file over 5 MB, unreadable form", async () => {
    const choose = {
      message: "Please choose an image to upload",
      errors: { profileImage: ["Please choose an image to upload"] },
    };
    const cases: [Promise<Response>, number, unknown][] = [
      [
        upload(JSON.stringify({ x: 1 }), { "content-type": "application/json" }),
        400,
        { ...choose, message: "Send the image as multipart/form-data with a profileImage field" },
      ],
      [upload("x", { "content-type": "text/plain" }), 400, undefined],
      [upload(form("just text")), 400, choose],
      [upload(form(new File([new Uint8Array(10)], "a.png"), "otherField")), 400, choose],
      [upload(form(new File([], "empty.png", { type: "image/png" }))), 415, IMAGE_TYPE],
      [upload(form(new File([new Uint8Array(5 * 1024 * 1024 + 1)], "big.png"))), 413, IMAGE_SIZE],
      [
        upload("--b\r\nnot a valid form", { "content-type": "multipart/form-data; boundary=b" }),
        400,
        { ...choose, message: "The upload could not be read. Please try again." },
      ],
    ];
    const before = await stored();
    for (const [response, status, body] of cases) {
      const res = await response;
      expect(res.status).toBe(status);
      if (body) expect(await res.json()).toEqual(body);
    }
    expect(await stored()).toEqual(before);
  });

  test("a file of exactly 5 MB is read (and judged by its bytes)", async () => {
    const res = await upload(form(new File([new Uint8Array(5 * 1024 * 1024)], "exact.png")));
    expect(res.status).toBe(415);
  });

  test("a multipart type in capitals is multipart", async () => {
    const f = form(new File([await picture(10, 10).png().toBuffer()], "a.png"));
    const request = new Request("http://x/", { method: "POST", body: f });
    const type = request.headers.get("content-type") ?? "";
    const res = await upload(await request.arrayBuffer(), {
      "content-type": type.replace("multipart/form-data", "MULTIPART/FORM-DATA"),
    });
    expect(res.status).toBe(201);
  });

  test("a declared body over 5 MB and the envelope is refused before the body is sent", async () => {
    const url = new URL(api.url);
    const limit = 5 * 1024 * 1024 + 64 * 1024;
    const answer = async (declared: number) => {
      let received = "";
      const { promise, resolve } = Promise.withResolvers<string>();
      const socket = await Bun.connect({
        hostname: url.hostname,
        port: Number(url.port),
        socket: {
          data(_s, chunk) {
            received += Buffer.from(chunk).toString("latin1");
            if (received.includes("\r\n\r\n")) resolve(received);
          },
          close() {
            resolve(received);
          },
        },
      });
      socket.write(
        `POST /api/upload/profile-image HTTP/1.1\r\nHost: ${url.host}\r\nOrigin: ${api.origin}\r\n` +
          `Cookie: ${user.cookie}\r\nContent-Type: multipart/form-data; boundary=b\r\n` +
          `Content-Length: ${declared}\r\n\r\n--b\r\n`,
      );
      // Only the first bytes are ever sent: the answer comes before the body.
      const head = await promise;
      socket.end();
      return head.split("\r\n")[0];
    };
    expect(await answer(limit + 1)).toBe("HTTP/1.1 413 Payload Too Large");
    // At exactly the limit the body is read: a body of that size that is no form is a 400.
    const exact = await upload(new Uint8Array(limit), { "content-type": "multipart/form-data; boundary=b" });
    expect(exact.status).toBe(400);
    expect(((await exact.json()) as { message: string }).message).toBe(
      "The upload could not be read. Please try again.",
    );
  });

  test("the upload limit: 10 a minute per user, counted before the form is read", async () => {
    const config = api.ctx.config as { RATE_LIMIT: string };
    config.RATE_LIMIT = "on";
    try {
      await api.ctx.database.db.execute(sql`delete from rate_limits`);
      for (let i = 0; i < 10; i++) expect((await upload(form("not a file"))).status).toBe(400);
      const over = await upload(form("not a file"));
      expect(over.status).toBe(429);
      const result = (await api.ctx.database.db.execute(sql`select key, count from rate_limits`)) as unknown;
      const rows = Array.isArray(result) ? result : (result as { rows: unknown[] }).rows;
      expect(rows).toEqual([{ key: `upload:${user.id}`, count: 11 }]);
    } finally {
      config.RATE_LIMIT = "off";
    }
  });

  test("an upload clears the user's own uploads older than an hour, except the avatar", async () => {
    await api.ctx.database.db.delete(images);
    const old = new Date(Date.now() - 61 * 60 * 1000);
    const recent = new Date(Date.now() - 59 * 60 * 1000);
    const row = (id: string, createdAt: Date, userId = user.id) => ({
      id,
      userId,
      contentType: "image/webp",
      data: new Uint8Array([1]),
      byteSize: 1,
      createdAt,
    });
    const other = await createUser(api);
    await api.ctx.database.db
      .insert(images)
      .values([
        row("old_avatar_aaaaaaaaaa", old),
        row("old_unused_bbbbbbbbbb", old),
        row("recent_unused_cccccccc", recent),
        row("old_of_other_dddddddd", old, other.id),
      ]);
    await api.fetch("/api/profile", {
      method: "PUT",
      headers: { cookie: user.cookie },
      body: { profileImageUrl: "/images/old_avatar_aaaaaaaaaa.webp" },
    });
    // Setting the avatar pruned the others (api/profile/routes.ts); put the two back.
    await api.ctx.database.db
      .insert(images)
      .values([row("old_unused_bbbbbbbbbb", old), row("recent_unused_cccccccc", recent)])
      .onConflictDoNothing();
    const res = await upload(form(new File([await picture(12, 12).png().toBuffer()], "n.png")));
    expect(res.status).toBe(201);
    const { imageUrl } = (await res.json()) as { imageUrl: string };
    const newId = imageUrl.slice("/images/".length, -".webp".length);
    expect((await stored()).map((r) => r.id).sort()).toEqual(
      ["old_avatar_aaaaaaaaaa", "recent_unused_cccccccc", newId].sort(),
    );
    const others = await api.ctx.database.db.select().from(images).where(eq(images.userId, other.id));
    expect(others).toHaveLength(1);
    await api.fetch("/api/profile", { method: "PUT", headers: { cookie: user.cookie }, body: { profileImageUrl: "" } });
  });
});

describe("an upload's clean-up with an avatar that is not one of ours", () => {
  test.each(["https://cdn.example/images/old_lookalike_aaaaaaaa.webp", "/images/old_lookalike_aaaaaaaa.webp.old"])(
    "%p: the old upload of that id is cleared, and the upload succeeds",
    async (avatar) => {
      await api.ctx.database.db.delete(images);
      await api.ctx.database.db.insert(images).values({
        id: "old_lookalike_aaaaaaaa",
        userId: user.id,
        contentType: "image/webp",
        data: new Uint8Array([1]),
        byteSize: 1,
        createdAt: new Date(Date.now() - 2 * 60 * 60 * 1000),
      });
      // Stored directly: the URL rules may have been other when it was set.
      const { users } = await import("../../db/schema");
      await api.ctx.database.db.update(users).set({ profileImageUrl: avatar }).where(eq(users.id, user.id));
      api.ctx.caches.invalidate({ userId: user.id });
      const res = await upload(form(new File([await picture(14, 14).png().toBuffer()], "n.png")));
      expect(res.status).toBe(201);
      expect((await stored()).map((r) => r.id)).not.toContain("old_lookalike_aaaaaaaa");
      await api.ctx.database.db.update(users).set({ profileImageUrl: null }).where(eq(users.id, user.id));
      api.ctx.caches.invalidate({ userId: user.id });
    },
  );
});

describe("pruneImages", () => {
  test("removes the user's images nobody shows; the one shown and other users' stay", async () => {
    const { users } = await import("../../db/schema");
    const db = api.ctx.database.db;
    await db.delete(images);
    const other = await createUser(api);
    const row = (id: string, userId = user.id) => ({
      id,
      userId,
      contentType: "image/webp",
      data: new Uint8Array([1]),
      byteSize: 1,
    });
    const shows = (url: string | null) => db.update(users).set({ profileImageUrl: url }).where(eq(users.id, user.id));
    const ids = async () => (await db.select({ id: images.id }).from(images)).map((r) => r.id).sort();
    await db
      .insert(images)
      .values([row("keep_me_aaaaaaaaaaaaaa"), row("drop_me_bbbbbbbbbbbbbb"), row("theirs_cccccccccccccc", other.id)]);
    await shows("/images/keep_me_aaaaaaaaaaaaaa.webp");
    await pruneImages(db, user.id);
    expect(await ids()).toEqual(["keep_me_aaaaaaaaaaaaaa", "theirs_cccccccccccccc"]);
    // A URL that only looks like ours keeps nothing of the user's.
    for (const url of [
      "/images/keep_me_aaaaaaaaaaaaaa.webp.old",
      "https://elsewhere.example/images/keep_me_aaaaaaaaaaaaaa.webp",
      null,
    ]) {
      await shows(url);
      await pruneImages(db, user.id);
      expect(await ids(), String(url)).toEqual(["theirs_cccccccccccccc"]);
      await db.insert(images).values(row("keep_me_aaaaaaaaaaaaaa"));
    }
    await shows(null);
  });
});

describe("GET /images/:id.webp", () => {
  const ID = "served_image_id_0123456789";
  const DATA = new Uint8Array([82, 73, 70, 70, 1, 2, 3, 4]);

  beforeAll(async () => {
    await api.ctx.database.db
      .insert(images)
      .values({ id: ID, userId: user.id, contentType: "image/webp", data: DATA, byteSize: DATA.byteLength })
      .onConflictDoNothing();
  });

  test("the bytes, forever cacheable, with the id as ETag; HEAD without the body; 304 on a match", async () => {
    const res = await api.fetch(`/images/${ID}.webp`);
    expect(res.status).toBe(200);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(DATA);
    expect(res.headers.get("content-type")).toBe("image/webp");
    expect(res.headers.get("content-length")).toBe(String(DATA.byteLength));
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(res.headers.get("etag")).toBe(`"${ID}"`);
    const head = await api.fetch(`/images/${ID}.webp`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toBe("image/webp");
    expect(await head.text()).toBe("");
    const notModified = await api.fetch(`/images/${ID}.webp`, { headers: { "if-none-match": `"${ID}"` } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get("etag")).toBe(`"${ID}"`);
    expect(notModified.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const other = await api.fetch(`/images/${ID}.webp`, { headers: { "if-none-match": `"other"` } });
    expect(other.status).toBe(200);
  });

  test.each([
    "short_id_123456.webp",
    `${"a".repeat(65)}.webp`,
    `${ID}.png`,
    `${ID}.webpx`,
    `x${ID}`,
    "bad.id.0123456789abcdef.webp",
    "missing_id_0123456789.webp",
    `x.${"served_image_id_0123456789"}.webp`,
    `${"a".repeat(64)}.webp`,
  ])("%p: 404", async (file) => {
    const res = await api.fetch(`/images/${file}`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: "Image not found" });
  });

  test("ids of 16 and of 64 characters are looked up", async () => {
    for (const id of ["a".repeat(16), "b".repeat(64)]) {
      await api.ctx.database.db
        .insert(images)
        .values({ id, userId: user.id, contentType: "image/webp", data: DATA, byteSize: DATA.byteLength });
      expect((await api.fetch(`/images/${id}.webp`)).status).toBe(200);
    }
  });
});
