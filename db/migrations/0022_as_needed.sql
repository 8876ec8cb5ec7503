-- Issue 48, as needed counted: limits on an as-needed supplement, a count per day (every existing
-- intake is one), and the log of count changes that Today's lastTakenAt is read from.
CREATE TABLE "as_needed_log" (
	"user_id" text NOT NULL,
	"date" date NOT NULL,
	"supplement_id" integer NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"count_from" integer NOT NULL,
	"count_to" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "intakes" ADD COLUMN "count" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "supplements" ADD COLUMN "as_needed" jsonb;--> statement-breakpoint
ALTER TABLE "as_needed_log" ADD CONSTRAINT "as_needed_log_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "as_needed_log_day_idx" ON "as_needed_log" USING btree ("user_id","date","supplement_id");--> statement-breakpoint
ALTER TABLE "intakes" ADD CONSTRAINT "intakes_count_check" CHECK ("intakes"."count" BETWEEN 1 AND 24);