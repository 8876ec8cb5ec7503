-- Images are keyed by (id, user_id): every user who shows /images/<id>.webp owns a row with that
-- id, so one user clearing or replacing their avatar can never delete another's (issue 12).
-- New uploads hash the owner with the bytes (api/images.ts imageId). Before this migration the
-- id was the hash of the bytes alone and the first uploader owned the only row, while others who
-- uploaded the same picture pointed at it: each of them gets a copy under the same id, so every
-- stored avatar URL is still served and is theirs. "images_pkey" is Postgres' name for the
-- inline key of 0000. The hash index answers "does anyone still show this image?" before a
-- delete (a URL may be longer than a btree entry may be).
ALTER TABLE "images" DROP CONSTRAINT "images_pkey";--> statement-breakpoint
ALTER TABLE "images" ADD CONSTRAINT "images_id_user_id_pk" PRIMARY KEY("id","user_id");--> statement-breakpoint
CREATE INDEX "users_profile_image_url_idx" ON "users" USING hash ("profile_image_url");--> statement-breakpoint
INSERT INTO "images" ("id", "user_id", "content_type", "data", "byte_size", "created_at")
SELECT DISTINCT ON (u."id", i."id") i."id", u."id", i."content_type", i."data", i."byte_size", i."created_at"
FROM "users" u
JOIN "images" i ON u."profile_image_url" = '/images/' || i."id" || '.webp'
WHERE i."user_id" <> u."id"
ON CONFLICT DO NOTHING;
