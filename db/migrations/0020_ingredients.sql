ALTER TABLE "schedule_versions" ADD COLUMN "serving_size" numeric(5, 2) DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "schedule_versions" ADD COLUMN "ingredients" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "supplements" ADD COLUMN "serving_size" numeric(5, 2) DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "supplements" ADD COLUMN "ingredients" jsonb DEFAULT '[]'::jsonb NOT NULL;