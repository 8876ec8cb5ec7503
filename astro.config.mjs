// @ts-check
import react from "@astrojs/react";
import tailwindcss from "@tailwindcss/vite";
import { defineConfig } from "astro/config";
import stacktrack from "./src/host/astro-adapter.mjs";

export default defineConfig({
  output: "server",
  adapter: stacktrack(),
  integrations: [react()],
  server: { port: 4321, host: true },
  build: { inlineStylesheets: "never" },
  markdown: { syntaxHighlight: false },
  // Astro hashes the inline scripts it emits (the island loader) into a CSP <meta>,
  // so no other inline script can run. server.ts adds the directives a <meta> cannot
  // carry (frame-ancestors) as a header.
  security: {
    csp: {
      directives: [
        "default-src 'self'",
        "img-src 'self' data: blob: https:",
        "font-src 'self'",
        "connect-src 'self' https://api.stripe.com https://m.stripe.network",
        "frame-src https://js.stripe.com https://hooks.stripe.com",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
      ],
      scriptDirective: { resources: ["'self'", "https://js.stripe.com"] },
      styleDirective: { resources: ["'self'", "'unsafe-inline'"] },
    },
  },
  vite: {
    plugins: [tailwindcss()],
    ssr: { external: ["@electric-sql/pglite", "postgres", "sharp", "stripe", "nodemailer"] },
  },
});
