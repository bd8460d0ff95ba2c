import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["packages/*/src/**/*.test.ts", "examples/src/**/*.test.ts", "test/**/*.test.ts"],
    // the pack test builds and installs the packages: its own step (pnpm test:package)
    exclude: [...configDefaults.exclude, "test/package/**"],
    // An in-memory PGlite costs seconds and ~700 MB to start, so each worker keeps one for all
    // its test files (packages/test-kit/src/database.ts); tests isolate themselves with their own tenants.
    pool: "forks",
    poolOptions: { forks: { isolate: false } },
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
