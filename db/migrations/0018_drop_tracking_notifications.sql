-- Issue 46: no instance keeps a user's Today or supplement list in memory any more, so a change
-- to their log or schedule versions announces nothing. The per-row NOTIFY of 0007 made Postgres
-- serialise every committing dose tick (a notifying commit takes one global lock).
-- While a previous release still runs (a rolling deploy), its own cached Today answers are
-- dropped only by its own writes and its 5-minute expiry.
DROP TRIGGER IF EXISTS intakes_changes ON intakes;--> statement-breakpoint
DROP TRIGGER IF EXISTS schedule_versions_changes ON schedule_versions;--> statement-breakpoint
DROP FUNCTION IF EXISTS stacktrack_notify_tracking();
