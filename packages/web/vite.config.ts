/**
 * Builds the app (src/app) into dist/app: one script and one style sheet with hashed names,
 * addressed relative to the page (`base: "./"`), so the same files run at the host's /app and
 * from any other folder or server. JSX is compiled by esbuild for Preact; no other plugin.
 */
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

export default defineConfig({
  root: fileURLToPath(new URL("src/app", import.meta.url)),
  base: "./",
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  build: {
    outDir: fileURLToPath(new URL("dist/app", import.meta.url)),
    emptyOutDir: true,
    target: "es2022",
    // the host serves its own Content-Security-Policy: no inline script, no module preload polyfill
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
  },
  logLevel: "warn",
});
