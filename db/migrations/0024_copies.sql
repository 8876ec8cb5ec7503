CREATE TABLE "supplement_daily_copies" (
	"supplement_id" integer NOT NULL,
	"day" date NOT NULL,
	"copies" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "supplement_daily_copies_pk" PRIMARY KEY("supplement_id","day")
);
--> statement-breakpoint
ALTER TABLE "supplements" ADD COLUMN "source_user_id" text;--> statement-breakpoint
ALTER TABLE "supplements" ADD COLUMN "source_supplement_id" integer;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "allow_copies" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "supplement_daily_copies" ADD CONSTRAINT "supplement_daily_copies_supplement_id_supplements_id_fk" FOREIGN KEY ("supplement_id") REFERENCES "public"."supplements"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "supplements" ADD CONSTRAINT "supplements_source_user_id_users_id_fk" FOREIGN KEY ("source_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "supplements_source_user_id_idx" ON "supplements" USING btree ("source_user_id") WHERE "supplements"."source_user_id" is not null;