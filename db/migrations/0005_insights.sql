-- Issue 14: public affiliate links and notes (the owner's two switches), and views and clicks
-- counted without cookies and without storing an address (api/insights/counter.ts).
-- The users notification trigger of 0001 fires on every UPDATE of a row, whatever the column,
-- so a change to either switch (or premium ending) drops every instance's cached page at once.
ALTER TABLE "users" ADD COLUMN "show_notes" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "show_affiliate_links" boolean DEFAULT true NOT NULL;--> statement-breakpoint
-- Views and unique visitors of a public profile, per UTC day.
CREATE TABLE "profile_daily_counts" (
	"user_id" text NOT NULL REFERENCES "users"("id") ON DELETE CASCADE,
	"day" date NOT NULL,
	"views" integer DEFAULT 0 NOT NULL,
	"visitors" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "profile_daily_counts_pk" PRIMARY KEY("user_id","day")
);--> statement-breakpoint
-- Clicks on a supplement's 'View Product' link (/go/{id}), per UTC day.
CREATE TABLE "supplement_daily_clicks" (
	"supplement_id" integer NOT NULL REFERENCES "supplements"("id") ON DELETE CASCADE,
	"day" date NOT NULL,
	"clicks" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "supplement_daily_clicks_pk" PRIMARY KEY("supplement_id","day")
);--> statement-breakpoint
-- The random salt of each UTC day, shared by every instance (so one visitor is one visitor on
-- all of them); salts older than 2 days are deleted.
CREATE TABLE "visit_salts" (
	"day" date PRIMARY KEY NOT NULL,
	"salt" bytea NOT NULL
);--> statement-breakpoint
-- Today's visitor hashes (salt of the day, address, User-Agent, profile): only to know whether a
-- view is a new visitor's; rows of earlier days are deleted by the next flush.
CREATE TABLE "visitor_hashes" (
	"day" date NOT NULL,
	"hash" bytea NOT NULL,
	"user_id" text NOT NULL REFERENCES "users"("id") ON DELETE CASCADE,
	CONSTRAINT "visitor_hashes_pk" PRIMARY KEY("day","hash")
);--> statement-breakpoint
CREATE INDEX "visitor_hashes_user_id_idx" ON "visitor_hashes" ("user_id");
