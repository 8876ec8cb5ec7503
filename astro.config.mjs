// @ts-check
import react from "@astrojs/react";
import tailwindcss from "@tailwindcss/vite";
import { defineConfig } from "astro/config";
import stacktrack from "./src/server/adapter.mjs";

export default defineConfig({
  output: "server",
  adapter: stacktrack(),
  integrations: [react()],
  server: { port: 4321, host: true },
  build: { inlineStylesheets: "never" },
  vite: {
    plugins: [tailwindcss()],
    ssr: { external: ["@electric-sql/pglite", "postgres", "sharp", "stripe", "nodemailer"] },
  },
});
