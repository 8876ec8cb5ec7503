/**
 * Issue 5, POST /api/upload/profile-image and GET /images/{id}.webp, with real files made
 * by sharp here: what decodes as JPEG, PNG, WebP, GIF or AVIF is re-encoded to a square
 * WebP without metadata (a photo's GPS position never leaves the server); everything else
 * is refused from its bytes, whatever its name or declared type, and nothing is stored.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import postgres from "postgres";
import sharp from "sharp";
import { pruneImages, toAvatarWebp } from "../../api/images/routes";
import { avatarAllowed } from "../../api/profile/user-fields";
import { images, users } from "../../db/schema";
import { type TestDatabase, withDatabase } from "../support/db";
import { startApi, type TestApi } from "../support/server";
import { type ApiUser, createUser, userRow } from "../support/users";

const INVALID = "Please select a valid image file";
const TOO_BIG = "Image must be smaller than 5MB";
const MB = 1024 * 1024;

let api: TestApi;
let user: ApiUser;
beforeAll(async () => {
  api = await startApi();
  user = await createUser(api, { username: "avatar_owner" });
});
afterAll(async () => {
  await api.close();
});

/** A photo-like picture (not a flat colour, so every encoder has real work). */
function picture(width: number, height: number) {
  const channels = 3;
  const pixels = Buffer.alloc(width * height * channels);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * channels;
      pixels[i] = (x * 255) / width;
      pixels[i + 1] = (y * 255) / height;
      pixels[i + 2] = ((x + y) * 7) % 256;
    }
  }
  return sharp(pixels, { raw: { width, height, channels } });
}

/** A JPEG as a phone writes it: camera make and a GPS position in its EXIF. */
const jpegWithGps = () =>
  picture(800, 600)
    .jpeg({ quality: 85 })
    .withExif({
      IFD0: { Make: "QA-Camera-Make", Model: "QA-Model-X", Copyright: "QA-Copyright-Owner" },
      IFD3: {
        GPSLatitudeRef: "N",
        GPSLatitude: "51/1 30/1 2612/100",
        GPSLongitudeRef: "W",
        GPSLongitude: "0/1 7/1 3960/100",
      },
    })
    .toBuffer();

const bytesOf = (text: string) => new TextEncoder().encode(text);

function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

function randomBytes(size: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(size);
  for (let at = 0; at < size; at += 65_536) crypto.getRandomValues(out.subarray(at, Math.min(at + 65_536, size)));
  return out;
}

function upload(
  file: Uint8Array<ArrayBuffer> | Blob,
  name = "avatar.jpg",
  type = "image/jpeg",
  as: ApiUser | null = user,
  field = "profileImage",
) {
  const form = new FormData();
  form.append(field, file instanceof Blob ? file : new File([file], name, { type }));
  return api.fetch("/api/upload/profile-image", {
    method: "POST",
    headers: as ? { cookie: as.cookie } : {},
    body: form,
  });
}

const imageCount = async () => (await api.ctx.database.db.select({ id: images.id }).from(images)).length;

/** The upload must be refused with `status` and `message`, storing nothing. */
async function expectRefused(res: Promise<Response>, status: number, message?: string) {
  const before = await imageCount();
  const avatarBefore = (await userRow(api, user)).profileImageUrl;
  const response = await res;
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toContain("application/json");
  const body = (await response.json()) as { message: string };
  if (message) expect(body.message).toBe(message);
  else expect(typeof body.message).toBe("string");
  expect(await imageCount()).toBe(before);
  expect((await userRow(api, user)).profileImageUrl).toBe(avatarBefore);
}

async function uploadOk(file: Uint8Array<ArrayBuffer>, name: string, type: string): Promise<string> {
  const res = await upload(file, name, type);
  expect(res.status).toBe(201);
  const body = (await res.json()) as { imageUrl: string };
  expect(body.imageUrl).toMatch(/^\/images\/[A-Za-z0-9_-]{16,64}\.webp$/);
  return body.imageUrl;
}

describe("accepted uploads", () => {
  test("a JPEG with GPS EXIF comes back as a square WebP with no EXIF at all", async () => {
    const input = await jpegWithGps();
    // The input really carries the metadata the server must strip.
    const inMeta = await sharp(input).metadata();
    expect(inMeta.format).toBe("jpeg");
    expect(inMeta.exif).toBeDefined();
    const exif = Buffer.from(inMeta.exif as Buffer);
    expect(exif.includes("QA-Camera-Make")).toBe(true);
    // The GPS IFD pointer tag (0x8825), in either byte order.
    expect(exif.includes(Buffer.from([0x88, 0x25])) || exif.includes(Buffer.from([0x25, 0x88]))).toBe(true);

    const url = await uploadOk(input, "holiday.jpg", "image/jpeg");
    const res = await api.fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/webp");
    const cache = res.headers.get("cache-control") ?? "";
    expect(cache).toContain("immutable");
    expect(cache).toMatch(/max-age=(\d{7,})/);
    const out = Buffer.from(await res.arrayBuffer());
    expect(res.headers.get("content-length")).toBe(String(out.byteLength));
    const meta = await sharp(out).metadata();
    expect(meta.format).toBe("webp");
    expect(meta.exif).toBeUndefined();
    expect(meta.xmp).toBeUndefined();
    expect(meta.width).toBe(meta.height);
    expect(meta.width).toBeGreaterThan(0);
    // Not a byte of the camera's metadata survives.
    for (const marker of ["QA-Camera-Make", "QA-Model-X", "QA-Copyright-Owner", "Exif", "GPS"]) {
      expect(out.includes(marker)).toBe(false);
    }
  });

  const formats: [string, string, string, () => Promise<Buffer>][] = [
    ["PNG", "a.png", "image/png", () => picture(300, 500).png().toBuffer()],
    ["WebP", "a.webp", "image/webp", () => picture(640, 480).webp().toBuffer()],
    ["GIF", "a.gif", "image/gif", () => picture(120, 90).gif().toBuffer()],
    ["AVIF", "a.avif", "image/avif", () => picture(200, 200).avif({ quality: 50 }).toBuffer()],
  ];
  for (const [format, name, type, make] of formats) {
    test(`${format} is accepted and served as a square WebP`, async () => {
      const url = await uploadOk(new Uint8Array(await make()), name, type);
      const res = await api.fetch(url);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/webp");
      const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
      expect(meta.format).toBe("webp");
      expect(meta.width).toBe(meta.height);
    });
  }

  test("the type is read from the bytes: a real PNG named .txt with a text type is accepted", async () => {
    await uploadOk(new Uint8Array(await picture(64, 64).png().toBuffer()), "notes.txt", "text/plain");
  });

  test("a JPEG with an HTML payload appended is re-encoded: the served bytes hold no markup", async () => {
    const jpeg = await picture(100, 100).jpeg().toBuffer();
    const polyglot = concat(new Uint8Array(jpeg), bytesOf("<html><script>alert(document.cookie)</script></html>"));
    const url = await uploadOk(polyglot, "poly.jpg", "image/jpeg");
    const out = Buffer.from(await (await api.fetch(url)).arrayBuffer());
    expect(out.includes("<script>")).toBe(false);
    expect(out.includes("alert(")).toBe(false);
  });

  test("the uploaded image is stored in the database, and becomes the avatar through PUT /api/profile", async () => {
    const url = await uploadOk(new Uint8Array(await picture(50, 80).png().toBuffer()), "me.png", "image/png");
    const id = url.match(/^\/images\/(.+)\.webp$/)?.[1] ?? "";
    const [row] = await api.ctx.database.db.select().from(images).where(eq(images.id, id));
    expect(row?.userId).toBe(user.id);
    expect(row?.contentType).toBe("image/webp");
    const res = await api.fetch("/api/profile", {
      method: "PUT",
      headers: { cookie: user.cookie },
      body: { profileImageUrl: url },
    });
    expect(res.status).toBe(200);
    expect((await userRow(api, user)).profileImageUrl).toBe(url);
    const profile = (await (await api.fetch("/api/profile/avatar_owner")).json()) as {
      user: { profileImageUrl: string };
    };
    expect(profile.user.profileImageUrl).toBe(url);
    // Anyone may load it: no session needed.
    expect((await api.fetch(url, { headers: {} })).status).toBe(200);
  });
});

describe("serving /images", () => {
  let url: string;
  beforeAll(async () => {
    url = await uploadOk(new Uint8Array(await picture(40, 40).png().toBuffer()), "s.png", "image/png");
  });

  test("a conditional request with the ETag answers 304 with the same cache headers", async () => {
    const first = await api.fetch(url);
    await first.arrayBuffer();
    const etag = first.headers.get("etag");
    expect(etag).toBeTruthy();
    const again = await api.fetch(url, { headers: { "if-none-match": etag as string } });
    expect(again.status).toBe(304);
    expect(again.headers.get("cache-control")).toContain("immutable");
  });

  test("an unknown or malformed image path is 404", async () => {
    for (const path of ["/images/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA.webp", "/images/x.png", "/images/short.webp"]) {
      const res = await api.fetch(path);
      expect(res.status).toBe(404);
    }
  });
});

describe("refused uploads: the right status and message, nothing stored", () => {
  test("a 6 MB file: 413 'Image must be smaller than 5MB' (refused from the declared size)", async () => {
    const big = concat(new Uint8Array([0xff, 0xd8, 0xff, 0xe0]), randomBytes(6 * MB));
    await expectRefused(upload(big, "big.jpg", "image/jpeg"), 413, TOO_BIG);
  });

  test("a real image just over 5 MB: 413 (the file's own size)", async () => {
    // A valid PNG padded past 5 MB with a trailing chunk of noise: the request itself is
    // within the multipart allowance, so the file's size decides.
    const png = new Uint8Array(await picture(32, 32).png().toBuffer());
    const file = concat(png, randomBytes(5 * MB + 1 - png.byteLength));
    expect(file.byteLength).toBe(5 * MB + 1);
    await expectRefused(upload(file, "big.png", "image/png"), 413, TOO_BIG);
  });

  test("a 6 MB body streamed without Content-Length: 413 too", async () => {
    const boundary = "----qa-boundary";
    const head = bytesOf(
      `--${boundary}\r\nContent-Disposition: form-data; name="profileImage"; filename="s.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`,
    );
    const tail = bytesOf(`\r\n--${boundary}--\r\n`);
    const chunks = [
      head,
      new Uint8Array([0xff, 0xd8, 0xff]),
      ...Array.from({ length: 6 }, () => randomBytes(MB)),
      tail,
    ];
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next) controller.enqueue(next);
        else controller.close();
      },
    });
    const res = api.fetch("/api/upload/profile-image", {
      method: "POST",
      headers: { cookie: user.cookie, "content-type": `multipart/form-data; boundary=${boundary}` },
      body,
      // @ts-expect-error: a streamed request body (Bun and undici both need it)
      duplex: "half",
    });
    await expectRefused(res, 413, TOO_BIG);
  });

  test("an SVG (even declared as image/svg+xml): 415 'Please select a valid image file'", async () => {
    const svg = bytesOf(
      `<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><script>alert(1)</script><rect width="100" height="100" fill="red"/></svg>`,
    );
    await expectRefused(upload(svg, "logo.svg", "image/svg+xml"), 415, INVALID);
    await expectRefused(upload(svg, "logo.png", "image/png"), 415, INVALID);
  });

  test("a text file renamed to .jpg with an image type: 415", async () => {
    const text = bytesOf("Just some notes, not a picture at all.\n".repeat(50));
    await expectRefused(upload(text, "photo.jpg", "image/jpeg"), 415, INVALID);
  });

  test("an HTML page declared as an image: 415", async () => {
    await expectRefused(
      upload(bytesOf("<!doctype html><script>alert(1)</script>"), "x.png", "image/png"),
      415,
      INVALID,
    );
  });

  test("a PNG header followed by garbage: 415", async () => {
    const png = concat(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(4096));
    await expectRefused(upload(png, "broken.png", "image/png"), 415, INVALID);
  });

  test("a truncated JPEG: 415", async () => {
    const jpeg = new Uint8Array(await picture(200, 200).jpeg().toBuffer());
    await expectRefused(
      upload(jpeg.subarray(0, Math.floor(jpeg.byteLength / 3)), "cut.jpg", "image/jpeg"),
      415,
      INVALID,
    );
  });

  test("a GIF header on a script (a GIF/JS polyglot): 415", async () => {
    await expectRefused(upload(bytesOf("GIF89a=1;alert(document.cookie)//"), "poly.gif", "image/gif"), 415, INVALID);
  });

  test("an empty file: 415", async () => {
    await expectRefused(upload(new Uint8Array(0), "empty.jpg", "image/jpeg"), 415, INVALID);
  });

  test("no profileImage field: 400", async () => {
    const png = new Uint8Array(await picture(20, 20).png().toBuffer());
    await expectRefused(upload(png, "a.png", "image/png", user, "avatar"), 400);
    const form = new FormData();
    form.append("profileImage", "just a string, not a file");
    await expectRefused(
      api.fetch("/api/upload/profile-image", { method: "POST", headers: { cookie: user.cookie }, body: form }),
      400,
    );
  });

  test("a body that is not multipart: 400", async () => {
    await expectRefused(
      api.fetch("/api/upload/profile-image", {
        method: "POST",
        headers: { cookie: user.cookie },
        body: { profileImage: "x" },
      }),
      400,
    );
  });

  test("signed out: 401 {message: 'Unauthorized'}", async () => {
    const png = new Uint8Array(await picture(20, 20).png().toBuffer());
    await expectRefused(upload(png, "a.png", "image/png", null), 401, "Unauthorized");
  });

  test("from another origin: 403", async () => {
    const png = new Uint8Array(await picture(20, 20).png().toBuffer());
    const form = new FormData();
    form.append("profileImage", new File([png], "a.png", { type: "image/png" }));
    await expectRefused(
      api.fetch("/api/upload/profile-image", {
        method: "POST",
        origin: "https://evil.example",
        headers: { cookie: user.cookie },
        body: form,
      }),
      403,
    );
  });
});

describe("upload rate limit (RATE_LIMIT=on)", () => {
  let limited: TestApi;
  beforeAll(async () => {
    limited = await startApi({ RATE_LIMIT: "on" });
  });
  afterAll(async () => {
    await limited.close();
  });

  test("per user: 429 after 10 uploads a minute; another user is not affected", async () => {
    const [first, second] = [await createUser(limited), await createUser(limited)];
    const png = new Uint8Array(await picture(16, 16).png().toBuffer());
    const send = (who: ApiUser) => {
      const form = new FormData();
      form.append("profileImage", new File([png], "a.png", { type: "image/png" }));
      return limited.fetch("/api/upload/profile-image", {
        method: "POST",
        headers: { cookie: who.cookie },
        body: form,
      });
    };
    for (let i = 0; i < 10; i++) expect((await send(first)).status).toBe(201);
    const refused = await send(first);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await send(second)).status).toBe(201);
  });
});

/**
 * Issue 12, finding 4: one user could delete another's avatar. Images were keyed by the hash of
 * their bytes with the first uploader as owner; now each user's upload is their own row, an
 * image is never deleted while anyone shows it, and rows stored the old way are shared out by
 * migration 0004 so that every stored avatar URL is still served.
 */
describe("no user can delete another user's avatar", () => {
  const setAvatar = async (who: ApiUser, url: string) => {
    const res = await api.fetch("/api/profile", {
      method: "PUT",
      headers: { cookie: who.cookie },
      body: { profileImageUrl: url },
    });
    expect(res.status).toBe(200);
  };
  const uploadAs = async (who: ApiUser, bytes: Uint8Array<ArrayBuffer>) => {
    const res = await upload(bytes, "same.png", "image/png", who);
    expect(res.status).toBe(201);
    return ((await res.json()) as { imageUrl: string }).imageUrl;
  };
  const status = async (url: string) => {
    const res = await api.fetch(url, { headers: {} });
    await res.arrayBuffer();
    return res.status;
  };
  const idOf = (url: string) => url.slice("/images/".length, -".webp".length);
  /** Makes the user's stored images look older than the hour an unused upload is kept. */
  const age = (who: Pick<ApiUser, "id">) =>
    api.ctx.database.db
      .update(images)
      .set({ createdAt: new Date(Date.now() - 2 * 60 * 60 * 1000) })
      .where(eq(images.userId, who.id));

  test("two users upload the same picture: the first clears, then replaces theirs; the second's URL still answers 200", async () => {
    const [first, second] = [await createUser(api), await createUser(api)];
    const same = new Uint8Array(await picture(90, 90).png().toBuffer());
    const firstUrl = await uploadAs(first, same);
    const secondUrl = await uploadAs(second, same);
    await setAvatar(first, firstUrl);
    await setAvatar(second, secondUrl);

    await setAvatar(first, ""); // clears: first's image is deleted…
    expect(await status(firstUrl === secondUrl ? "/images/none.webp" : firstUrl)).toBe(404);
    expect(await status(secondUrl)).toBe(200); // …never second's

    await setAvatar(first, await uploadAs(first, same));
    await setAvatar(first, await uploadAs(first, new Uint8Array(await picture(91, 90).png().toBuffer()))); // replaces
    expect(await status(secondUrl)).toBe(200);
    expect((await userRow(api, second)).profileImageUrl).toBe(secondUrl);
    // And second can still save their own avatar (it is theirs).
    await setAvatar(second, secondUrl);
  });

  test("the same picture uploaded by two users is two images, each owned by its uploader", async () => {
    const [first, second] = [await createUser(api), await createUser(api)];
    const same = new Uint8Array(await picture(60, 60).png().toBuffer());
    const a = await uploadAs(first, same);
    const b = await uploadAs(second, same);
    expect(a).not.toBe(b);
    const owners = await api.ctx.database.db.select({ id: images.id, userId: images.userId }).from(images);
    expect(owners.filter((r) => r.id === idOf(a)).map((r) => r.userId)).toEqual([first.id]);
    expect(owners.filter((r) => r.id === idOf(b)).map((r) => r.userId)).toEqual([second.id]);
    // Uploading it again gives the same URL (and no second row).
    expect(await uploadAs(first, same)).toBe(a);
  });

  test("whether the avatar changed is decided from the row, not from the signed-in user the instance remembers", async () => {
    const owner = await createUser(api);
    const url = await uploadAs(owner, new Uint8Array(await picture(70, 75).png().toBuffer()));
    const before = await userRow(api, owner);
    // The row shows the upload (set by another instance)…
    await api.ctx.database.db.update(users).set({ profileImageUrl: url }).where(eq(users.id, owner.id));
    // …while this instance still remembers the user without it: its notification of the change
    // is still on its way (made here, after the notification came, so that the order is sure).
    const caches = api.ctx.caches;
    for (let i = 0; i < 100 && caches.getUser(owner.id); i++) await Bun.sleep(10);
    caches.setUser({ ...before, profileImageUrl: null }, caches.begin());
    expect(caches.getUser(owner.id)?.profileImageUrl).toBeNull();
    await setAvatar(owner, "");
    expect((await userRow(api, owner)).profileImageUrl).toBeNull();
    expect(await status(url)).toBe(404);
  });

  test("cleanup never deletes an image someone shows; it still deletes what nobody shows", async () => {
    const [owner, viewer] = [await createUser(api), await createUser(api)];
    const shown = await uploadAs(owner, new Uint8Array(await picture(70, 71).png().toBuffer()));
    const unused = await uploadAs(owner, new Uint8Array(await picture(70, 72).png().toBuffer()));
    // Another user shows the owner's image (as users whose avatars were stored before
    // migration 0004 did, when the first uploader of a picture owned the only row).
    await api.ctx.database.db.update(users).set({ profileImageUrl: shown }).where(eq(users.id, viewer.id));
    await age(owner);

    // An upload clears the owner's unused uploads older than an hour…
    await uploadAs(owner, new Uint8Array(await picture(70, 73).png().toBuffer()));
    expect(await status(unused)).toBe(404);
    expect(await status(shown)).toBe(200);

    // …and changing the avatar clears the owner's replaced ones.
    const mine = await uploadAs(owner, new Uint8Array(await picture(70, 74).png().toBuffer()));
    await setAvatar(owner, mine);
    await setAvatar(owner, "");
    expect(await status(mine)).toBe(404);
    expect(await status(shown)).toBe(200);

    // Once nobody shows it, it goes with the owner's next clean-up.
    await api.ctx.database.db.update(users).set({ profileImageUrl: null }).where(eq(users.id, viewer.id));
    await setAvatar(owner, await uploadAs(owner, new Uint8Array(await picture(70, 75).png().toBuffer())));
    expect(await status(shown)).toBe(404);
  });

  test("an upload's clean-up keeps the owner's current avatar, read from the database at that moment", async () => {
    const owner = await createUser(api);
    const current = await uploadAs(owner, new Uint8Array(await picture(80, 81).png().toBuffer()));
    // Set behind the app's back (as another instance would): this instance's remembered row is stale.
    await api.fetch("/api/auth/user", { headers: { cookie: owner.cookie } });
    await api.ctx.database.db.update(users).set({ profileImageUrl: current }).where(eq(users.id, owner.id));
    await age(owner);
    await uploadAs(owner, new Uint8Array(await picture(80, 82).png().toBuffer()));
    expect(await status(current)).toBe(200);
  });
});

describe("migration 0004: avatars stored the old way (one row per picture, first uploader owns it)", () => {
  /** db/migrations as it was before `tag`: a copy without that migration and the later ones. */
  function migrationsBefore(tag: string): string {
    const dir = mkdtempSync(join(tmpdir(), "st-migrations-"));
    cpSync(join(import.meta.dir, "../../db/migrations"), dir, { recursive: true });
    const path = join(dir, "meta/_journal.json");
    const journal = JSON.parse(readFileSync(path, "utf8")) as { entries: { tag: string }[] };
    const at = journal.entries.findIndex((e) => e.tag === tag);
    expect(at).toBeGreaterThan(0);
    journal.entries = journal.entries.slice(0, at);
    writeFileSync(path, JSON.stringify(journal));
    return dir;
  }

  const SHARED = "LegacySharedPicture0123456789ab";
  const LEGACY_USERS = [
    ["legacy_first", "first@legacy.example", `/images/${SHARED}.webp`], // uploaded it first: owns the row
    ["legacy_second", "second@legacy.example", `/images/${SHARED}.webp`], // uploaded the same picture later
    ["legacy_none", "none@legacy.example", null],
  ] as const;

  /** A database migrated up to 0003 holding the old-style rows, as a TestDatabase for startApi. */
  async function legacyDatabase(webp: Uint8Array): Promise<TestDatabase> {
    const folder = migrationsBefore("0004_images_per_user");
    try {
      const serverUrl = process.env.TEST_DATABASE_URL;
      if (serverUrl) {
        const name = `st_legacy_${crypto.randomUUID().slice(0, 8)}`;
        const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
        await admin.unsafe(`create database "${name}"`);
        await admin.end();
        const url = withDatabase(serverUrl, name);
        const sql = postgres(url, { max: 1, onnotice: () => {} });
        const { drizzle } = await import("drizzle-orm/postgres-js");
        const { migrate } = await import("drizzle-orm/postgres-js/migrator");
        await migrate(drizzle({ client: sql }), { migrationsFolder: folder });
        for (const [id, email, avatar] of LEGACY_USERS) {
          await sql`insert into users (id, email, name, profile_image_url) values (${id}, ${email}, 'Legacy', ${avatar})`;
        }
        await sql`insert into images (id, user_id, content_type, data, byte_size)
                  values (${SHARED}, 'legacy_first', 'image/webp', ${Buffer.from(webp)}, ${webp.byteLength})`;
        await sql.end();
        return {
          env: { DATABASE_URL: url },
          drop: async () => {
            const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
            await admin.unsafe(`drop database if exists "${name}" with (force)`);
            await admin.end();
          },
        };
      }
      const root = mkdtempSync(join(tmpdir(), "st-legacy-"));
      const { PGlite } = await import("@electric-sql/pglite");
      const { drizzle } = await import("drizzle-orm/pglite");
      const { migrate } = await import("drizzle-orm/pglite/migrator");
      const client = await PGlite.create(join(root, "pglite"));
      await migrate(drizzle({ client }), { migrationsFolder: folder });
      for (const [id, email, avatar] of LEGACY_USERS) {
        await client.query("insert into users (id, email, name, profile_image_url) values ($1, $2, 'Legacy', $3)", [
          id,
          email,
          avatar,
        ]);
      }
      await client.query(
        "insert into images (id, user_id, content_type, data, byte_size) values ($1, 'legacy_first', 'image/webp', $2, $3)",
        [SHARED, webp, webp.byteLength],
      );
      await client.close();
      return { env: { DATA_DIR: root }, drop: async () => rmSync(root, { recursive: true, force: true }) };
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }

  let legacy: TestApi;
  beforeAll(async () => {
    const webp = await toAvatarWebp(new Uint8Array(await picture(64, 64).png().toBuffer()));
    legacy = await startApi({}, { database: await legacyDatabase(webp) });
  }, 120_000);
  afterAll(async () => {
    await legacy?.close();
  });

  test("every stored avatar is still served at its URL, each of its users owns it, and one clearing it leaves it for the other", async () => {
    const db = legacy.ctx.database.db;
    const url = `/images/${SHARED}.webp`;
    const served = async () => {
      const res = await legacy.fetch(url, { headers: {} });
      await res.arrayBuffer();
      return res.status;
    };
    expect(await served()).toBe(200);
    const owners = await db.select({ userId: images.userId }).from(images).where(eq(images.id, SHARED));
    expect(owners.map((o) => o.userId).sort()).toEqual(["legacy_first", "legacy_second"]);
    // Each may keep it as their avatar (PUT /api/profile's ownership check); nobody else may.
    expect(await avatarAllowed(db, url, { userId: "legacy_first" })).toBe(true);
    expect(await avatarAllowed(db, url, { userId: "legacy_second" })).toBe(true);
    expect(await avatarAllowed(db, url, { userId: "legacy_none" })).toBe(false);

    // The first uploader clears theirs: the second's avatar is still served.
    await db.update(users).set({ profileImageUrl: null }).where(eq(users.id, "legacy_first"));
    await pruneImages(db, "legacy_first", legacy.ctx.caches);
    expect(await served()).toBe(200);
    // The second clears theirs too: now nobody shows it, and it is gone.
    await db.update(users).set({ profileImageUrl: null }).where(eq(users.id, "legacy_second"));
    await pruneImages(db, "legacy_second", legacy.ctx.caches);
    expect(await served()).toBe(404);
  });
});
