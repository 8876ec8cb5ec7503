-- Undo of a supplement's delete (issue 38): a private copy of what the delete removed, kept
-- for the Undo window and purged after it (docs/undo-delete.md).
CREATE TABLE "supplement_trash" (
	"user_id" text NOT NULL,
	"supplement_id" integer NOT NULL,
	"deleted_at" timestamp with time zone NOT NULL,
	"row" jsonb NOT NULL,
	"versions" jsonb NOT NULL,
	"clicks" jsonb NOT NULL,
	CONSTRAINT "supplement_trash_pk" PRIMARY KEY("user_id","supplement_id")
);
--> statement-breakpoint
ALTER TABLE "supplement_trash" ADD CONSTRAINT "supplement_trash_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "supplement_trash_deleted_at_idx" ON "supplement_trash" USING btree ("deleted_at");