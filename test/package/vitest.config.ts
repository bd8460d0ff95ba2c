import { resolve } from "node:path";
import { defineConfig } from "vitest/config";

// The pack test (pack.test.ts): builds, packs and installs the packages, so it runs on its own
// (`pnpm test:package`, a step of .ci/run), not in the unit suite.
export default defineConfig({
  root: resolve(import.meta.dirname, "../.."),
  test: {
    include: ["test/package/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 600_000,
  },
});
