-- Issue 15: a deleted account's username is held for 30 days (api/account/delete.ts), so
-- nobody can take over a name others still link to. Keyed by the lower-case name, as the
-- users' unique index is; a hold whose time has passed counts as free (no clean-up job).
CREATE TABLE "username_holds" (
	"name" text PRIMARY KEY NOT NULL,
	"held_until" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
