-- Unique visitors as batches: each flush stores one row per profile and day with the new
-- visitors' hashes side by side (16 bytes each), instead of one row per visitor in
-- visitor_hashes. A new visitor used to cost Postgres a row, a primary-key check, an index
-- entry and a foreign-key check (about 13 µs of Postgres CPU each, measured); a whole profile's
-- batch now costs one row. Which visitors are new is worked out when the count is read: a
-- day's visitors are profile_daily_counts.visitors plus the distinct hashes of its batches, and
-- the first flush of each UTC day adds the earlier days' distinct counts to visitors and
-- deletes those batches (api/insights/counter.ts).
-- The previous release keeps writing visitor_hashes (and counting its own visitors into
-- profile_daily_counts) until it stops; this release only deletes that table's earlier days.
-- visitor_hashes is dropped in a later release, once no running release writes it.
CREATE TABLE "visitor_batches" (
	"day" date NOT NULL,
	"user_id" text NOT NULL REFERENCES "users"("id") ON DELETE CASCADE,
	"hashes" bytea NOT NULL
);--> statement-breakpoint
-- Random bytes do not compress: store them as they are, without trying.
ALTER TABLE "visitor_batches" ALTER COLUMN "hashes" SET STORAGE EXTERNAL;--> statement-breakpoint
CREATE INDEX "visitor_batches_user_day_idx" ON "visitor_batches" ("user_id", "day");
