-- Daily tracking (issue 19): a schedule and an amount per supplement, the user's time zone,
-- schedule versions so that an ended day never changes, and the log of doses.
--
-- supplements.schedule: {"times": [...], "days": [...]} or NULL for 'as needed'. Every
-- supplement that exists when this ships becomes 'once a day, every day' from today (UTC).
ALTER TABLE "users" ADD COLUMN "time_zone" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "show_schedule" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "supplements" ADD COLUMN "schedule" jsonb DEFAULT '{"times":["anytime"],"days":[1,2,3,4,5,6,7]}'::jsonb;--> statement-breakpoint
ALTER TABLE "supplements" ADD COLUMN "dose_amount" numeric(6, 2);--> statement-breakpoint
-- What a supplement was from `valid_from` (the user's date) until the next version: its
-- schedule, name, type and amount, or `deleted`. A day's doses are those of the version in
-- force on it, so a change made today rewrites today and later, never an ended day. No
-- foreign key to supplements: a deleted supplement's past stays. The user's rows go with
-- the user.
CREATE TABLE "schedule_versions" (
	"user_id" text NOT NULL,
	"supplement_id" integer NOT NULL,
	"valid_from" date NOT NULL,
	"name" text NOT NULL,
	"quantity_type" text NOT NULL,
	"dose_amount" numeric(6, 2),
	"schedule" jsonb,
	"deleted" boolean DEFAULT false NOT NULL,
	CONSTRAINT "schedule_versions_pk" PRIMARY KEY("user_id","supplement_id","valid_from")
);--> statement-breakpoint
-- One row per logged dose: (user, date, supplement, time) is the key, so identical ticks in
-- parallel leave one record (an upsert). `name` keeps the supplement's name for history.
CREATE TABLE "intakes" (
	"user_id" text NOT NULL,
	"date" date NOT NULL,
	"supplement_id" integer NOT NULL,
	"time" text NOT NULL,
	"status" text NOT NULL,
	"name" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	CONSTRAINT "intakes_pk" PRIMARY KEY("user_id","date","supplement_id","time"),
	CONSTRAINT "intakes_status_check" CHECK ("status" IN ('taken', 'skipped'))
);--> statement-breakpoint
ALTER TABLE "schedule_versions" ADD CONSTRAINT "schedule_versions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "intakes" ADD CONSTRAINT "intakes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
INSERT INTO "schedule_versions" ("user_id", "supplement_id", "valid_from", "name", "quantity_type", "dose_amount", "schedule")
SELECT "user_id", "id", (now() AT TIME ZONE 'UTC')::date, "name", "quantity_type", "dose_amount", "schedule" FROM "supplements";--> statement-breakpoint
-- Every change to a user's log or schedule versions is announced on `stacktrack_changes` as
-- {"t": "<user id>"}, so each instance drops that user's cached Today answers (api/cache.ts)
-- however the row changed. Row-level: Postgres folds identical notifications of a
-- transaction into one, and these writes are one row each.
CREATE OR REPLACE FUNCTION stacktrack_notify_tracking() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('stacktrack_changes', json_build_object('t', OLD.user_id)::text);
  ELSE
    PERFORM pg_notify('stacktrack_changes', json_build_object('t', NEW.user_id)::text);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER intakes_changes AFTER INSERT OR UPDATE OR DELETE ON intakes
  FOR EACH ROW EXECUTE FUNCTION stacktrack_notify_tracking();
--> statement-breakpoint
CREATE TRIGGER schedule_versions_changes AFTER INSERT OR UPDATE OR DELETE ON schedule_versions
  FOR EACH ROW EXECUTE FUNCTION stacktrack_notify_tracking();
