-- A deleted user's change notification says so ("d": true), so that each instance drops the
-- user's cached avatars then and only then (api/cache.ts). Until now every notification about
-- a user (a profile edit, any change to their supplements) dropped them, and the next avatar
-- request read Postgres again; an avatar that is replaced or cleared announces its own id
-- (`{"i": id}`, api/images.ts). The previous release ignores the new key (it drops avatars on
-- every "u"), so this needs no contract step. Only the DELETE branch changes.
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
      PERFORM pg_notify('stacktrack_changes', json_build_object('u', r.id, 'n', json_build_array(r.old_name, r.new_name), 'd', true)::text);
    END LOOP;
  END IF;
  RETURN NULL;
END $$;
