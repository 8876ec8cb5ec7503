/** What the sign-in screens need from the server: where to go after, which providers exist. */
import type { AstroGlobal } from "astro";
import { getContext } from "../../api/lib/context";
import { resolveReturnPath } from "../lib/return-path";
import { pageUser } from "./page-user";

export async function authPageProps(Astro: AstroGlobal) {
  const { config } = await getContext();
  const redirectTo = resolveReturnPath(Astro.url.searchParams.get("redirectTo"), config.origin);
  const user = await pageUser(Astro);
  if (user) return { redirect: Astro.redirect(redirectTo, 302) } as const;
  const providers: ("github" | "google")[] = [];
  if (config.GITHUB_CLIENT_ID) providers.push("github");
  if (config.GOOGLE_CLIENT_ID) providers.push("google");
  const error = Astro.url.searchParams.get("error");
  return { redirectTo, providers, error: error ? "Sign-in failed. Please try again." : null } as const;
}
