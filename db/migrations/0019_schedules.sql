-- Issue 48: schedules with a start and an end, every N days, and on/off cycles. The one rule of
-- "is anything due on this day", the database's copy of src/lib/due.ts isDueOn (the table test
-- tests/unit/due-rules.test.ts checks the two agree row by row): the history read, the counts
-- of intake_days and the reminders' open doses call it. A schedule without the new fields
-- (every schedule set before) is due on its weekdays, as before: nothing is rewritten.
CREATE OR REPLACE FUNCTION stacktrack_due_on(s jsonb, d date) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN jsonb_typeof(s) IS DISTINCT FROM 'object' OR jsonb_typeof(s -> 'days') IS DISTINCT FROM 'array' THEN false
    WHEN NOT (s -> 'days') @> to_jsonb(extract(isodow FROM d)::int) THEN false
    WHEN s ->> 'startsOn' IS NOT NULL AND d < (s ->> 'startsOn')::date THEN false
    WHEN s ->> 'endsOn' IS NOT NULL AND d > (s ->> 'endsOn')::date THEN false
    WHEN s ->> 'startsOn' IS NULL THEN true
    WHEN s ->> 'every' IS NOT NULL THEN (d - (s ->> 'startsOn')::date) % (s -> 'every' ->> 'days')::int = 0
    WHEN s ->> 'cycle' IS NOT NULL THEN (d - (s ->> 'startsOn')::date)
      % ((s -> 'cycle' ->> 'on')::int + (s -> 'cycle' ->> 'off')::int) < (s -> 'cycle' ->> 'on')::int
    ELSE true
  END
$$;
--> statement-breakpoint
-- Migration 0011's counting, with the weekday test replaced by the rule above.
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
        AND NOT v.deleted AND stacktrack_due_on(v.schedule, i.date)
        AND (v.schedule -> 'times') ? i.time
    ) d ON true
    GROUP BY t.user_id, t.date
  ) c
  WHERE k.user_id = c.user_id AND k.date = c.date;
END $$;
