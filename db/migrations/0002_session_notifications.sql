-- Every ended session (sign-out, a revoked session, a password reset, a deleted user,
-- the clean-up of expired rows) is announced on `stacktrack_changes`, so that each app
-- instance forgets the sessions it had verified for that user within milliseconds
-- (api/cache.ts). Payload: {"s": "<user id>"}: the token itself never leaves the table.
-- Statement-level: a "sign out everywhere" sends one notification per user, not per row.
CREATE OR REPLACE FUNCTION stacktrack_notify_sessions() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  FOR r IN SELECT DISTINCT o.user_id FROM old_rows o LOOP
    PERFORM pg_notify('stacktrack_changes', json_build_object('s', r.user_id)::text);
  END LOOP;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER sessions_changes_delete AFTER DELETE ON sessions REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION stacktrack_notify_sessions();
