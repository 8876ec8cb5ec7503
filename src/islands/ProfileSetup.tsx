import { useEffect, useId, useRef, useState } from "react";
import Field from "../components/Field";
import { MESSAGES, PROFILE_MESSAGES } from "../lib/account-messages";
import { ApiError, api, profileExists } from "../lib/api";
import { BIO_MAX, CLAIM_PARAM, PRODUCT_NAME, USERNAME_CHECK_MIN, USERNAME_INPUT_MAX } from "../lib/constants";
import { isReservedUsername } from "../lib/reserved-usernames";
import { flashToast, notify } from "../lib/toast";
import type { CurrentUser } from "../lib/types";
import { bioSchema, usernameSchema } from "../lib/validation";
import Avatar from "./Avatar";

interface Props {
  user: CurrentUser;
}

type Check = "idle" | "checking" | "taken" | "free";

/** 'Welcome to <product>': choose a username (checked live) and an optional bio. */
export default function ProfileSetup({ user }: Props) {
  const [username, setUsername] = useState("");
  const [bio, setBio] = useState("");
  const [check, setCheck] = useState<Check>("idle");
  const [usernameError, setUsernameError] = useState<string | null>(null);
  const [bioError, setBioError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const [touched, setTouched] = useState(false);
  const latest = useRef("");
  const ids = { username: useId(), bio: useId() };

  // A name claimed from its free profile page ('Make it yours', issue 51) arrives as `?claim=`.
  useEffect(() => {
    const claim = new URLSearchParams(window.location.search).get(CLAIM_PARAM);
    if (claim && usernameSchema.safeParse(claim).success) setUsername((typed) => typed || claim);
  }, []);

  // The live availability check: from USERNAME_CHECK_MIN characters, debounced; found = taken, 404 = free.
  useEffect(() => {
    const name = username.trim();
    latest.current = name;
    if (name.length < USERNAME_CHECK_MIN || !usernameSchema.safeParse(name).success) {
      setCheck("idle");
      return;
    }
    if (isReservedUsername(name)) {
      setCheck("taken");
      return;
    }
    setCheck("checking");
    const controller = new AbortController();
    const timer = setTimeout(async () => {
      try {
        const taken = await profileExists(name, controller.signal);
        if (latest.current !== name) return;
        setCheck(taken ? "taken" : "free");
      } catch {
        if (!controller.signal.aborted && latest.current === name) setCheck("idle");
      }
    }, 350);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [username]);

  const formatError = (() => {
    const result = usernameSchema.safeParse(username);
    return result.success ? null : (result.error.issues[0]?.message ?? null);
  })();
  const shownUsernameError =
    check === "taken" ? MESSAGES.usernameTaken : (usernameError ?? (touched && username ? formatError : null));

  async function onSubmit(event: React.FormEvent) {
    event.preventDefault();
    setTouched(true);
    const name = usernameSchema.safeParse(username);
    const about = bioSchema.safeParse(bio);
    setUsernameError(name.success ? null : (name.error.issues[0]?.message ?? null));
    setBioError(about.success ? null : (about.error.issues[0]?.message ?? null));
    if (!name.success || !about.success || check === "taken" || check === "checking") return;
    setSubmitting(true);
    try {
      await api.put("/api/profile", { username: name.data, bio: bio.trim() ? bio : undefined });
      flashToast({
        kind: "success",
        title: PROFILE_MESSAGES.setupCompleteTitle,
        description: PROFILE_MESSAGES.setupComplete,
      });
      // Set up on the way to copy a stack (issue 50 §3): back to it; else home.
      const { pathname, search } = window.location;
      window.location.assign(pathname.startsWith("/copy/") ? pathname + search : "/");
    } catch (error) {
      setSubmitting(false);
      if (error instanceof ApiError && error.status === 409) {
        setCheck("taken");
        setUsernameError(MESSAGES.usernameTaken);
      } else if (error instanceof ApiError && error.status === 400 && error.errors) {
        setUsernameError(error.errors.username?.[0] ?? null);
        setBioError(error.errors.bio?.[0] ?? null);
      } else {
        notify.error(PROFILE_MESSAGES.setupFailed, PROFILE_MESSAGES.setupFailedTitle);
      }
    }
  }

  return (
    <div className="mx-auto w-full max-w-lg py-10 sm:py-16">
      <div className="card p-6 sm:p-8">
        <div className="flex flex-col items-center text-center">
          <Avatar user={user} size="lg" />
          <h1 className="mt-4 text-2xl font-bold tracking-tight text-slate-900">{`Welcome to ${PRODUCT_NAME}`}</h1>
          <p className="mt-2 text-slate-700">Let's set up your profile to get started.</p>
          <p className="user-text mt-1 text-sm text-slate-600">
            Signed in as <span className="font-medium text-slate-800">{user.email}</span>
          </p>
        </div>
        <form className="mt-8 space-y-5" onSubmit={onSubmit} noValidate>
          <Field
            id={ids.username}
            label="Username"
            name="username"
            placeholder="Choose a unique username"
            autoComplete="username"
            autoCapitalize="none"
            spellCheck={false}
            maxLength={USERNAME_INPUT_MAX}
            value={username}
            onChange={(e) => {
              setUsername(e.target.value);
              setUsernameError(null);
            }}
            onBlur={() => setTouched(true)}
            required
            hint={<span className="user-text">This will be your public profile URL: /{username.trim() || "name"}</span>}
            after={
              <>
                {check === "checking" && (
                  <p className="field-hint" role="status">
                    Checking availability...
                  </p>
                )}
                {check === "free" && !shownUsernameError && (
                  <p className="mt-1.5 text-sm text-brand-800" role="status">
                    Username is available
                  </p>
                )}
              </>
            }
            error={shownUsernameError ?? undefined}
            alertError
          />
          <Field
            id={ids.bio}
            label={
              <>
                Bio <span className="font-normal text-slate-600">(optional)</span>
              </>
            }
            multiline
            name="bio"
            className="min-h-24"
            placeholder="Tell people a little about yourself and your health goals"
            value={bio}
            onChange={(e) => setBio(e.target.value)}
            describedBy={`${ids.bio}-count`}
            after={
              <p
                id={`${ids.bio}-count`}
                className={`mt-1.5 text-right text-sm ${bio.length > BIO_MAX ? "text-red-700" : "text-slate-600"}`}
              >
                {bio.length}/{BIO_MAX}
              </p>
            }
            error={bioError ?? undefined}
            alertError
          />
          <button
            type="submit"
            className="btn btn-primary w-full"
            disabled={submitting || check === "checking" || check === "taken"}
          >
            {submitting ? "Setting up..." : "Complete Setup"}
          </button>
        </form>
      </div>
    </div>
  );
}
