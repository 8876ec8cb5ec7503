DROP INDEX "reminder_outbox_key_idx";--> statement-breakpoint
ALTER TABLE "reminder_outbox" ADD COLUMN "follow_up" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "reminder_settings" ADD COLUMN "follow_ups" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
-- Issue 48: up to 3 follow-ups per reminder, numbered. Every follow-up stored so far was the one
-- follow-up there was: it is number 1, so the planner never plans it a second time.
UPDATE "reminder_outbox" SET "follow_up" = 1 WHERE "kind" = 'follow-up';--> statement-breakpoint
CREATE UNIQUE INDEX "reminder_outbox_key_idx" ON "reminder_outbox" USING btree ("user_id","local_date","slot","kind","channel","follow_up");--> statement-breakpoint
ALTER TABLE "reminder_outbox" ADD CONSTRAINT "reminder_outbox_follow_up_check" CHECK ("reminder_outbox"."follow_up" BETWEEN 0 AND 3);--> statement-breakpoint
ALTER TABLE "reminder_settings" ADD CONSTRAINT "reminder_settings_follow_ups_check" CHECK ("reminder_settings"."follow_ups" BETWEEN 0 AND 3);