-- Every change to what a profile shows is announced on the channel
-- `stacktrack_changes`, whatever made it (the app, a webhook, a person with psql),
-- so that each app instance drops its cached copies within milliseconds.
-- Payload: {"u": "<user id>", "n": ["<lower-case username>", ...]}.
-- Statement-level triggers: a 200-row reorder sends one notification, not 200
-- (and Postgres folds identical notifications of one transaction into one).
CREATE OR REPLACE FUNCTION stacktrack_notify_users() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  IF TG_OP = 'INSERT' THEN
    FOR r IN SELECT n.id, NULL::text AS old_name, lower(n.username) AS new_name FROM new_rows n LOOP
      PERFORM pg_notify('stacktrack_changes', json_build_object('u', r.id, 'n', json_build_array(r.old_name, r.new_name))::text);
    END LOOP;
  ELSIF TG_OP = 'UPDATE' THEN
    FOR r IN SELECT n.id, lower(o.username) AS old_name, lower(n.username) AS new_name
             FROM new_rows n JOIN old_rows o ON o.id = n.id LOOP
      PERFORM pg_notify('stacktrack_changes', json_build_object('u', r.id, 'n', json_build_array(r.old_name, r.new_name))::text);
    END LOOP;
  ELSE
    FOR r IN SELECT o.id, lower(o.username) AS old_name, NULL::text AS new_name FROM old_rows o LOOP
      PERFORM pg_notify('stacktrack_changes', json_build_object('u', r.id, 'n', json_build_array(r.old_name, r.new_name))::text);
    END LOOP;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER users_changes_insert AFTER INSERT ON users REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION stacktrack_notify_users();
--> statement-breakpoint
CREATE TRIGGER users_changes_update AFTER UPDATE ON users REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION stacktrack_notify_users();
--> statement-breakpoint
CREATE TRIGGER users_changes_delete AFTER DELETE ON users REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION stacktrack_notify_users();
--> statement-breakpoint
-- PL/pgSQL plans each statement when it first runs, so a branch may name a
-- transition table that only the other triggers have.
CREATE OR REPLACE FUNCTION stacktrack_notify_supplements() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  IF TG_OP = 'DELETE' THEN
    FOR r IN SELECT DISTINCT o.user_id, lower(u.username) AS name FROM old_rows o LEFT JOIN users u ON u.id = o.user_id LOOP
      PERFORM pg_notify('stacktrack_changes', json_build_object('u', r.user_id, 'n', json_build_array(r.name))::text);
    END LOOP;
  ELSE
    FOR r IN SELECT DISTINCT n.user_id, lower(u.username) AS name FROM new_rows n LEFT JOIN users u ON u.id = n.user_id LOOP
      PERFORM pg_notify('stacktrack_changes', json_build_object('u', r.user_id, 'n', json_build_array(r.name))::text);
    END LOOP;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER supplements_changes_insert AFTER INSERT ON supplements REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION stacktrack_notify_supplements();
--> statement-breakpoint
CREATE TRIGGER supplements_changes_update AFTER UPDATE ON supplements REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION stacktrack_notify_supplements();
--> statement-breakpoint
CREATE TRIGGER supplements_changes_delete AFTER DELETE ON supplements REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION stacktrack_notify_supplements();
