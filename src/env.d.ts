/// <reference types="astro/client" />

declare namespace App {
  interface Locals {
    /** Set by server.ts when it has already resolved the session. */
    user?: import("./lib/types").CurrentUser | null;
  }
}
