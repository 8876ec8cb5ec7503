// @ts-check
import react from "@astrojs/react";
import tailwindcss from "@tailwindcss/vite";
import { defineConfig } from "astro/config";
import stacktrack from "./server/astro-adapter.mjs";

/**
 * The client modules every island page shares: React, nanostores, src/lib and src/stores (not
 * Today's own), the menu; what Today's rows share with the as-needed row loaded on use
 * (today-rules, SyncNote); the dashboard's own small ones (push-client, totals-words), which
 * cost more as files of their own than the 1 KB they add to the sign-in pages.
 */
const APP_CHUNK =
  /\/(node_modules\/(react|react-dom|scheduler|nanostores|@nanostores\/react)\/|src\/(lib\/(dose|format|schedule|toast|stock|heatmap|streaks|user-agent|types|constants|messages|api|today-rules|push-client|totals-words)\.ts|stores\/(?!today\.)[a-z-]+\.ts|components\/Menu\.tsx|islands\/(DoseLine|Avatar|tracking\/SyncNote)\.tsx)$)/;

export default defineConfig({
  output: "server",
  adapter: stacktrack(),
  integrations: [react()],
  server: { port: 4321, host: true },
  // Issue 51: the stylesheet in the page, not a second round trip before the first paint (9 KB
  // gzipped; style-src allows inline styles, so Astro adds no hashes that would undo that).
  build: { inlineStylesheets: "always" },
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
    build: {
      rollupOptions: {
        output: {
          // The dashboard's shared modules as two files instead of twenty small ones (issue 38's
          // 110 KB budget: each file is gzipped on its own). The dates and print ones apart: a
          // public profile's print button loads only them. Vite's preload helper (every lazy
          // import's) goes in with the app's. Nothing here may import zod.
          codeSplitting: {
            groups: [
              { name: "dates", test: /\/src\/lib\/(dates|date-format|sharing|print)\.ts$/, priority: 2 },
              { name: "app", test: (id) => APP_CHUNK.test(id) || id.includes("vite/preload-helper"), priority: 1 },
            ],
          },
        },
      },
    },
  },
});
