-- Stock and refills (issue 40, docs/stock.md): per supplement an optional pack size, the last
-- count on hand (when, and that day in the user's zone) and the refills since it; what is left
-- is derived from these and the intake log at read time. Per user, the refill lead time.
ALTER TABLE "reminder_settings" ADD COLUMN "refill_lead_days" integer DEFAULT 7 NOT NULL;--> statement-breakpoint
ALTER TABLE "supplements" ADD COLUMN "units_per_pack" numeric(8, 2);--> statement-breakpoint
ALTER TABLE "supplements" ADD COLUMN "stock_count" numeric(8, 2);--> statement-breakpoint
ALTER TABLE "supplements" ADD COLUMN "stock_counted_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "supplements" ADD COLUMN "stock_counted_on" date;--> statement-breakpoint
ALTER TABLE "supplements" ADD COLUMN "stock_refills" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "supplements" ADD COLUMN "refill_reminded_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "reminder_settings" ADD CONSTRAINT "reminder_settings_refill_lead_check" CHECK ("reminder_settings"."refill_lead_days" IN (0, 3, 7, 14));