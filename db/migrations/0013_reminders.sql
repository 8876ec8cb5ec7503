-- Reminders (issue 39): settings per user, push subscriptions, the outbox the planner fills
-- and the senders claim, and the app's own keys (the embedded default's VAPID pair).
CREATE TABLE "app_keys" (
	"name" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "push_subscriptions" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"endpoint" text NOT NULL,
	"p256dh" text NOT NULL,
	"auth" text NOT NULL,
	"label" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "reminder_outbox" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "reminder_outbox_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"user_id" text NOT NULL,
	"local_date" date NOT NULL,
	"slot" text NOT NULL,
	"kind" text NOT NULL,
	"channel" text NOT NULL,
	"due_at" timestamp with time zone NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_at" timestamp with time zone NOT NULL,
	"lease_until" timestamp with time zone,
	"sent_at" timestamp with time zone,
	CONSTRAINT "reminder_outbox_status_check" CHECK ("reminder_outbox"."status" IN ('pending', 'sent', 'skipped', 'dropped', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "reminder_settings" (
	"user_id" text PRIMARY KEY NOT NULL,
	"morning" text DEFAULT '08:00' NOT NULL,
	"afternoon" text DEFAULT '13:00' NOT NULL,
	"evening" text DEFAULT '18:00' NOT NULL,
	"bedtime" text DEFAULT '22:00' NOT NULL,
	"email" boolean DEFAULT false NOT NULL,
	"push" boolean DEFAULT false NOT NULL,
	"follow_up_minutes" integer DEFAULT 60 NOT NULL,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "reminder_settings_follow_up_check" CHECK ("reminder_settings"."follow_up_minutes" IN (0, 30, 60, 120))
);
--> statement-breakpoint
ALTER TABLE "push_subscriptions" ADD CONSTRAINT "push_subscriptions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reminder_outbox" ADD CONSTRAINT "reminder_outbox_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reminder_settings" ADD CONSTRAINT "reminder_settings_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "push_subscriptions_endpoint_idx" ON "push_subscriptions" USING btree ("endpoint");--> statement-breakpoint
CREATE INDEX "push_subscriptions_user_idx" ON "push_subscriptions" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "reminder_outbox_key_idx" ON "reminder_outbox" USING btree ("user_id","local_date","slot","kind","channel");--> statement-breakpoint
CREATE INDEX "reminder_outbox_pending_idx" ON "reminder_outbox" USING btree ("next_at") WHERE "reminder_outbox"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "reminder_outbox_sent_due_idx" ON "reminder_outbox" USING btree ("due_at") WHERE "reminder_outbox"."status" = 'sent' AND "reminder_outbox"."kind" = 'reminder';--> statement-breakpoint
CREATE INDEX "reminder_settings_on_idx" ON "reminder_settings" USING btree ("user_id") WHERE "reminder_settings"."email" OR "reminder_settings"."push";