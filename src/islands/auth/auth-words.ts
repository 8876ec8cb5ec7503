/** The sign-in, sign-up and password forms' words (AuthForm): titles, buttons, errors in plain words. */
import { ApiError } from "../../lib/api";
import { PRODUCT_NAME } from "../../lib/constants";
import { COMMON_MESSAGES } from "../../lib/messages";

export type AuthMode = "sign-in" | "sign-up" | "forgot" | "reset";

export type Errors = Partial<Record<"name" | "email" | "password" | "form", string>>;

export const PROVIDER_LABEL = { github: "Continue with GitHub", google: "Continue with Google" } as const;

/** Sign-up's answer for a taken e-mail; the form shows it with a link to sign in. */
export const ACCOUNT_EXISTS = "An account with this e-mail already exists.";

/** better-auth's error codes in words a person understands. */
export function friendly(error: unknown, mode: AuthMode): string {
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

export function firstIssue(result: {
  success: boolean;
  error?: { issues: { path: PropertyKey[]; message: string }[] };
}) {
  const errors: Errors = {};
  for (const issue of result.error?.issues ?? []) {
    const key = String(issue.path[0] ?? "form") as keyof Errors;
    errors[key] ??= issue.message;
  }
  return errors;
}

/** Each mode's heading and line under it. */
export const TITLES: Record<AuthMode, [string, string]> = {
  "sign-in": [`Log in to ${PRODUCT_NAME}`, "Welcome back! Log in to manage your stack."],
  "sign-up": ["Create your account", "Start tracking your supplements in minutes. It's free."],
  forgot: ["Forgot your password?", "Enter your e-mail and we'll send you a link to choose a new one."],
  reset: ["Choose a new password", "Enter a new password for your account."],
};

/** Each mode's submit button: at rest, and while it works. */
export const SUBMIT_LABELS: Record<AuthMode, [string, string]> = {
  "sign-in": ["Log In", "Logging in..."],
  "sign-up": ["Create Account", "Creating account..."],
  forgot: ["Send Reset Link", "Sending..."],
  reset: ["Update Password", "Updating..."],
};
