/*
 * Names no one can take. Apart from constants.ts so that the dashboard's shared chunk does not
 * carry the list (its 110 KB budget, issue 38): only sign-up's set-up screen and the server read it.
 */
import { PRODUCT_NAME } from "./constants";

/**
 * First path segments the app uses itself, and names that would mislead; none can be
 * a username (they answer 409 'Username is already taken').
 */
export const RESERVED_USERNAMES: ReadonlySet<string> = new Set([
  "api",
  "auth",
  "subscribe",
  "billing",
  "profile",
  "uploads",
  "images",
  "image",
  "_astro",
  "assets",
  "static",
  "public",
  "favicon",
  "robots",
  "sitemap",
  "dashboard",
  "admin",
  "administrator",
  "root",
  "support",
  "help",
  "settings",
  "login",
  "logout",
  "signup",
  "signin",
  "sign_in",
  "sign_up",
  "register",
  "account",
  "accounts",
  "about",
  "terms",
  "privacy",
  "www",
  "mail",
  PRODUCT_NAME.toLowerCase(),
  "premium",
  "pricing",
  "security",
  "status",
  "health",
  "null",
  "undefined",
]);

export const isReservedUsername = (name: string) => RESERVED_USERNAMES.has(name.toLowerCase());
