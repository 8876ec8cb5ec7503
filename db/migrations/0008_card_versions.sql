-- Issue 16: each version of a profile's social card keeps its facts (what the card drew:
-- username, bio, avatar URL, supplement count and first five names, product name), so that an
-- old `/og/{username}/{version}.png` answers the picture of THAT version, immutably
-- (api/sharing/card-versions.ts). `version` is the content hash of `facts` and `revision` (the
-- template revision it was drawn with). A row is written once, when a version is first
-- computed for the page or the card (insert … on conflict do nothing); the newest 20 per user
-- (by `seq`, the order they were first recorded) are kept. The rows go with the user.
CREATE TABLE "card_versions" (
	"user_id" text NOT NULL REFERENCES "users"("id") ON DELETE CASCADE,
	"version" text NOT NULL,
	"revision" integer NOT NULL,
	"facts" jsonb NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "card_versions_pk" PRIMARY KEY("user_id","version")
);
