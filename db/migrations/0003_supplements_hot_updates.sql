-- Reorders rewrite sort_order (and updated_at) of many rows at once. With neither column
-- in an index, and free space left in each page, Postgres updates those rows in place
-- (HOT updates: no new index entries), which roughly halves a 200-item reorder's work.
CREATE INDEX "supplements_user_id_idx" ON "supplements" USING btree ("user_id");--> statement-breakpoint
DROP INDEX "supplements_user_order_idx";--> statement-breakpoint
ALTER TABLE "supplements" SET (fillfactor = 70);
