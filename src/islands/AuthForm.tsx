import { useId, useState } from "react";
import Field from "../components/Field";
import { api } from "../lib/api";
import { PRODUCT_NAME } from "../lib/constants";
import { resolveReturnPath } from "../lib/return-path";
import { emailSchema, passwordSchema, signInSchema, signUpSchema } from "../lib/validation";
import {
  ACCOUNT_EXISTS,
  type AuthMode,
  type Errors,
  firstIssue,
  friendly,
  PROVIDER_LABEL,
  SUBMIT_LABELS,
  TITLES,
} from "./auth/auth-words";

export type { AuthMode } from "./auth/auth-words";

interface Props {
  mode: AuthMode;
  redirectTo: string;
  providers: ("github" | "google")[];
  token?: string | null;
  /** An error passed back by an OAuth callback or an expired reset link. */
  initialError?: string | null;
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

  return (
    <div className="card w-full max-w-md p-6 sm:p-8">
      <h1 className="text-2xl font-bold tracking-tight text-slate-900">{TITLES[mode][0]}</h1>
      <p className="mt-2 text-slate-700">{TITLES[mode][1]}</p>

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
              {busy ? SUBMIT_LABELS[mode][1] : SUBMIT_LABELS[mode][0]}
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
