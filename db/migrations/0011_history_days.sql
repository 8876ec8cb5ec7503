-- Issue 36: a year's history read one row a day instead of every dose. Per user and day, the
-- logged doses that were due then (the schedule version in force on that day has that time on
-- that weekday): taken, skipped, and `first_day`, how many of them belong to a supplement added
-- that day (its doses are never missed). Kept by the statement-level triggers below, whatever
-- writes intakes or schedule_versions (the app, a test, a person with psql), so the app's
-- writes send no more statements than before. api/tracking/queries.ts reads it.
CREATE TABLE "intake_days" (
	"user_id" text NOT NULL,
	"date" date NOT NULL,
	"taken" integer NOT NULL,
	"skipped" integer NOT NULL,
	"first_day" integer NOT NULL,
	CONSTRAINT "intake_days_pk" PRIMARY KEY("user_id","date")
);
--> statement-breakpoint
ALTER TABLE "intake_days" ADD CONSTRAINT "intake_days_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Counts the days (user_ids[i], dates[i]) again from intakes and schedule_versions. Each day's row
-- is locked first and counted after, in a statement of its own: two writers of one day cannot
-- both count without the other's dose (each waits for the other's row lock, then sees its
-- commit). A user who is gone (an account deletion cascading to intakes) gets no row.
CREATE OR REPLACE FUNCTION stacktrack_count_intake_days(user_ids text[], dates date[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO intake_days (user_id, date, taken, skipped, first_day)
  SELECT DISTINCT t.user_id, t.date, 0, 0, 0 FROM unnest(user_ids, dates) AS t(user_id, date)
  WHERE EXISTS (SELECT 1 FROM users u WHERE u.id = t.user_id)
  ON CONFLICT (user_id, date) DO NOTHING;
  PERFORM 1 FROM intake_days k JOIN unnest(user_ids, dates) AS t(user_id, date)
    ON k.user_id = t.user_id AND k.date = t.date
  ORDER BY k.user_id, k.date FOR UPDATE OF k;
  UPDATE intake_days k SET taken = c.taken, skipped = c.skipped, first_day = c.first_day
  FROM (
    SELECT t.user_id, t.date,
      count(*) FILTER (WHERE d.status = 'taken')::int AS taken,
      count(*) FILTER (WHERE d.status = 'skipped')::int AS skipped,
      count(*) FILTER (WHERE d.first_day)::int AS first_day
    FROM (SELECT DISTINCT * FROM unnest(user_ids, dates) AS u(user_id, date)) t
    LEFT JOIN LATERAL (
      SELECT i.status, v.added_on = i.date AS first_day
      FROM intakes i
      CROSS JOIN LATERAL (
        SELECT sv.schedule, sv.deleted,
          (SELECT min(a.valid_from) FROM schedule_versions a
            WHERE a.user_id = sv.user_id AND a.supplement_id = sv.supplement_id) AS added_on
        FROM schedule_versions sv
        WHERE sv.user_id = i.user_id AND sv.supplement_id = i.supplement_id AND sv.valid_from <= i.date
        ORDER BY sv.valid_from DESC LIMIT 1
      ) v
      WHERE i.user_id = t.user_id AND i.date = t.date
        AND NOT v.deleted AND jsonb_typeof(v.schedule) = 'object'
        AND (v.schedule -> 'days') @> to_jsonb(extract(isodow FROM i.date)::int)
        AND (v.schedule -> 'times') ? i.time
    ) d ON true
    GROUP BY t.user_id, t.date
  ) c
  WHERE k.user_id = c.user_id AND k.date = c.date;
END $$;
--> statement-breakpoint
-- A logged dose changes its own day.
CREATE OR REPLACE FUNCTION stacktrack_intakes_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM stacktrack_count_intake_days(array_agg(user_id), array_agg(date))
      FROM (SELECT DISTINCT user_id, date FROM new_rows) t;
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM stacktrack_count_intake_days(array_agg(user_id), array_agg(date))
      FROM (SELECT user_id, date FROM new_rows UNION SELECT user_id, date FROM old_rows) t;
  ELSE
    PERFORM stacktrack_count_intake_days(array_agg(user_id), array_agg(date))
      FROM (SELECT DISTINCT user_id, date FROM old_rows) t;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER intakes_days_insert AFTER INSERT ON intakes REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION stacktrack_intakes_changed();
--> statement-breakpoint
CREATE TRIGGER intakes_days_update AFTER UPDATE ON intakes REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION stacktrack_intakes_changed();
--> statement-breakpoint
CREATE TRIGGER intakes_days_delete AFTER DELETE ON intakes REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION stacktrack_intakes_changed();
--> statement-breakpoint
-- A version from `valid_from` changes which logged doses were due from that day on, and which
-- day its supplement was added: the days of that supplement's doses from then are counted again
-- (for the app's writes, from the user's today: a day or two).
CREATE OR REPLACE FUNCTION stacktrack_versions_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM stacktrack_count_intake_days(array_agg(user_id), array_agg(date)) FROM (
      SELECT DISTINCT i.user_id, i.date FROM new_rows c
      JOIN intakes i ON i.user_id = c.user_id AND i.supplement_id = c.supplement_id AND i.date >= c.valid_from) t;
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM stacktrack_count_intake_days(array_agg(user_id), array_agg(date)) FROM (
      SELECT DISTINCT i.user_id, i.date FROM (SELECT * FROM new_rows UNION ALL SELECT * FROM old_rows) c
      JOIN intakes i ON i.user_id = c.user_id AND i.supplement_id = c.supplement_id AND i.date >= c.valid_from) t;
  ELSE
    PERFORM stacktrack_count_intake_days(array_agg(user_id), array_agg(date)) FROM (
      SELECT DISTINCT i.user_id, i.date FROM old_rows c
      JOIN intakes i ON i.user_id = c.user_id AND i.supplement_id = c.supplement_id AND i.date >= c.valid_from) t;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER versions_days_insert AFTER INSERT ON schedule_versions REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION stacktrack_versions_changed();
--> statement-breakpoint
CREATE TRIGGER versions_days_update AFTER UPDATE ON schedule_versions REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION stacktrack_versions_changed();
--> statement-breakpoint
CREATE TRIGGER versions_days_delete AFTER DELETE ON schedule_versions REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION stacktrack_versions_changed();
--> statement-breakpoint
-- The doses logged before this release.
SELECT stacktrack_count_intake_days(array_agg(user_id), array_agg(date))
  FROM (SELECT DISTINCT user_id, date FROM intakes) t;
