CREATE TABLE "intake_clears" (
	"user_id" text NOT NULL,
	"date" date NOT NULL,
	"supplement_id" integer NOT NULL,
	"time" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	CONSTRAINT "intake_clears_pk" PRIMARY KEY("user_id","date","supplement_id","time")
);
--> statement-breakpoint
ALTER TABLE "intake_clears" ADD CONSTRAINT "intake_clears_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;