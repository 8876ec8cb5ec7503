import { useId, useState } from "react";
import Field from "../components/Field";
import { ApiError, api } from "../lib/api";
import { PRODUCT_NAME } from "../lib/constants";
import { COMMON_MESSAGES } from "../lib/messages";
import { resolveReturnPath } from "../lib/return-path";
import { emailSchema, passwordSchema, signInSchema, signUpSchema } from "../lib/validation";

export type AuthMode = "sign-in" | "sign-up" | "forgot" | "reset";

interface Props {
  mode: AuthMode;
  redirectTo: string;
  providers: ("github" | "google")[];
  token?: string | null;
  /** An error passed back by an OAuth callback or an expired reset link. */
  initialError?: string | null;
}

type Errors = Partial<Record<"name" | "email" | "password" | "form", string>>;

const PROVIDER_LABEL = { github: "Continue with GitHub", google: "Continue with Google" } as const;

/** Sign-up's answer for a taken e-mail; the form shows it with a link to sign in. */
const ACCOUNT_EXISTS = "An account with this e-mail already exists.";

/** better-auth's error codes in words a person understands. */
function friendly(error: unknown, mode: AuthMode): string {
  if (error instanceof ApiError) {
    if (error.status === 429) return "Too many attempts. Please wait a minute and try again.";
    if (mode === "sign-in" && (error.status === 401 || error.status === 400)) return "Invalid email or password";
    if (mode === "sign-up" && (error.status === 422 || /exist/i.test(error.message))) return ACCOUNT_EXISTS;
    if (mode === "reset" && /token/i.test(error.message))
      return "This reset link is invalid or has expired. Please ask for a new one.";
    if (error.status > 0 && error.status < 500 && error.message) return error.message;
  }
  return COMMON_MESSAGES.serverError;
}

function firstIssue(result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) {
  const errors: Errors = {};
  for (const issue of result.error?.issues ?? []) {
    const key = String(issue.path[0] ?? "form") as keyof Errors;
    errors[key] ??= issue.message;
  }
  return errors;
}

/** Sign in, sign up, forgot password and reset password: one form, four modes. */
export default function AuthForm({ mode, redirectTo: given, providers, token, initialError }: Props) {
  // The server already resolved it (src/page-data/auth-page.ts); resolved again here so that
  // nothing but a path on this site ever reaches window.location.
  const redirectTo = resolveReturnPath(
    given,
    typeof window === "undefined" ? "http://localhost" : window.location.origin,
  );
  const [name, setName] = useState("");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [errors, setErrors] = useState<Errors>(initialError ? { form: initialError } : {});
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const id = useId();
  const q = redirectTo === "/" ? "" : `?redirectTo=${encodeURIComponent(redirectTo)}`;

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    let found: Errors = {};
    if (mode === "sign-in") found = firstIssue(signInSchema.safeParse({ email, password }));
    if (mode === "sign-up") found = firstIssue(signUpSchema.safeParse({ name, email, password }));
    if (mode === "forgot") found = firstIssue(emailSchema.safeParse(email));
    if (mode === "forgot" && found.form) found = { email: found.form };
    if (mode === "reset") {
      const r = passwordSchema.safeParse(password);
      if (!r.success) found = { password: r.error.issues[0]?.message };
    }
    setErrors(found);
    if (Object.keys(found).length) return;
    setBusy(true);
    try {
      if (mode === "sign-in") {
        await api.post("/api/auth/sign-in/email", { email, password, rememberMe: true });
        window.location.assign(redirectTo);
        return;
      }
      if (mode === "sign-up") {
        await api.post("/api/auth/sign-up/email", { name, email, password });
        window.location.assign(redirectTo);
        return;
      }
      if (mode === "forgot") {
        await api.post("/api/auth/request-password-reset", { email, redirectTo: "/auth/reset-password" });
        setDone("If an account exists for that e-mail, we've sent it a link to reset the password.");
      }
      if (mode === "reset") {
        await api.post("/api/auth/reset-password", { newPassword: password, token });
        setDone("Your password has been changed. You can now log in with your new password.");
      }
    } catch (error) {
      setErrors({ form: friendly(error, mode) });
    }
    setBusy(false);
  }

  async function social(provider: "github" | "google") {
    setBusy(true);
    try {
      const result = await api.post<{ url?: string }>("/api/auth/sign-in/social", {
        provider,
        callbackURL: redirectTo,
        errorCallbackURL: "/auth/sign-in",
      });
      if (result.url) window.location.assign(result.url);
    } catch (error) {
      setErrors({ form: friendly(error, mode) });
      setBusy(false);
    }
  }

  const titles: Record<AuthMode, [string, string]> = {
    "sign-in": [`Log in to ${PRODUCT_NAME}`, "Welcome back! Log in to manage your stack."],
    "sign-up": ["Create your account", "Start tracking your supplements in minutes. It's free."],
    forgot: ["Forgot your password?", "Enter your e-mail and we'll send you a link to choose a new one."],
    reset: ["Choose a new password", "Enter a new password for your account."],
  };
  const submitLabel: Record<AuthMode, [string, string]> = {
    "sign-in": ["Log In", "Logging in..."],
    "sign-up": ["Create Account", "Creating account..."],
    forgot: ["Send Reset Link", "Sending..."],
    reset: ["Update Password", "Updating..."],
  };

  return (
    <div className="card w-full max-w-md p-6 sm:p-8">
      <h1 className="text-2xl font-bold tracking-tight text-slate-900">{titles[mode][0]}</h1>
      <p className="mt-2 text-slate-700">{titles[mode][1]}</p>

      {errors.form && (
        <div role="alert" className="mt-6 rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800">
          {errors.form}
          {errors.form === ACCOUNT_EXISTS && (
            <>
              {" "}
              <a href={`/auth/sign-in${q}`} className="font-semibold underline underline-offset-2">
                Log in instead
              </a>
            </>
          )}
        </div>
      )}
      {done ? (
        <div role="status" className="mt-6 space-y-4">
          <p className="rounded-lg border border-brand-200 bg-brand-50 px-4 py-3 text-sm text-brand-900">{done}</p>
          <a href="/auth/sign-in" className="btn btn-primary w-full">
            Back to Log In
          </a>
        </div>
      ) : (
        <>
          {(mode === "sign-in" || mode === "sign-up") && providers.length > 0 && (
            <div className="mt-6 space-y-3">
              {providers.map((p) => (
                <button
                  key={p}
                  type="button"
                  className="btn btn-outline w-full"
                  disabled={busy}
                  onClick={() => social(p)}
                >
                  {PROVIDER_LABEL[p]}
                </button>
              ))}
              <div className="flex items-center gap-3 text-xs text-slate-600">
                <span className="h-px flex-1 bg-slate-200" />
                or with e-mail
                <span className="h-px flex-1 bg-slate-200" />
              </div>
            </div>
          )}
          <form className="mt-6 space-y-4" onSubmit={submit} noValidate>
            {mode === "sign-up" && (
              <Field
                id={`${id}-name`}
                label="Name"
                autoComplete="name"
                value={name}
                onChange={(e) => setName(e.target.value)}
                error={errors.name}
              />
            )}
            {mode !== "reset" && (
              <Field
                id={`${id}-email`}
                label="Email"
                type="email"
                autoComplete="email"
                value={email}
                onChange={(e) => setEmail(e.target.value)}
                error={errors.email}
              />
            )}
            {mode !== "forgot" && (
              <Field
                id={`${id}-password`}
                label={mode === "reset" ? "New password" : "Password"}
                labelAside={
                  mode === "sign-in" && (
                    <a
                      href="/auth/forgot-password"
                      className="mb-1.5 text-sm font-medium text-brand-800 underline-offset-2 hover:underline"
                    >
                      Forgot password?
                    </a>
                  )
                }
                type="password"
                autoComplete={mode === "sign-in" ? "current-password" : "new-password"}
                value={password}
                onChange={(e) => setPassword(e.target.value)}
                hint={mode !== "sign-in" && !errors.password ? "At least 8 characters." : undefined}
                error={errors.password}
              />
            )}
            <button type="submit" className="btn btn-primary w-full" disabled={busy}>
              {busy ? submitLabel[mode][1] : submitLabel[mode][0]}
            </button>
          </form>
        </>
      )}
      <p className="mt-6 text-center text-sm text-slate-700">
        {mode === "sign-in" && (
          <>
            {`New to ${PRODUCT_NAME}? `}
            <a href={`/auth/sign-up${q}`} className="font-semibold text-brand-800 underline-offset-2 hover:underline">
              Create an account
            </a>
          </>
        )}
        {mode === "sign-up" && (
          <>
            Already have an account?{" "}
            <a href={`/auth/sign-in${q}`} className="font-semibold text-brand-800 underline-offset-2 hover:underline">
              Log in
            </a>
          </>
        )}
        {(mode === "forgot" || mode === "reset") && !done && (
          <a href="/auth/sign-in" className="font-semibold text-brand-800 underline-offset-2 hover:underline">
            Back to Log In
          </a>
        )}
      </p>
    </div>
  );
}
