import { readdirSync } from "node:fs";
import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from "vitest/config";

/** each suite's tests: every workspace package's, the examples', and the workspace-wide ones in test/ */
const suites: Record<string, string[]> = {
  ...Object.fromEntries(
    readdirSync(new URL("packages", import.meta.url))
      // the shared test helpers (@bizdata/test-kit) have no tests of their own
      .filter((name) => name !== "test-kit")
      .map((name) => [name, [`packages/${name}/src/**/*.test.ts`]]),
  ),
  examples: ["examples/src/**/*.test.ts"],
  workspace: ["test/**/*.test.ts"],
};

// The project decides the driver: tests read DATABASE_URL (packages/test-kit/src/database.ts and
// the PostgreSQL-only tests), so a PGlite project clears it whatever the shell has set, and a
// PostgreSQL project runs on the server the shell's DATABASE_URL names. Without one there are no
// PostgreSQL projects, so `vitest run <files>` needs no server.
const drivers: Record<string, string> = { pglite: "" };
if (process.env.DATABASE_URL) drivers.postgres = process.env.DATABASE_URL;

const projects: TestProjectInlineConfiguration[] = Object.entries(drivers).flatMap(([driver, url]) =>
  Object.entries(suites).map(([suite, include]) => ({
    extends: true,
    test: { name: `${suite} · ${driver}`, include, env: { DATABASE_URL: url } },
  })),
);

export default defineConfig({
  test: {
    projects,
    // the pack test builds and installs the packages: its own step (pnpm test:package)
    exclude: [...configDefaults.exclude, "test/package/**"],
    // An in-memory PGlite costs seconds and ~700 MB to start, so each worker keeps one for all
    // of a project's test files (packages/test-kit/src/database.ts); tests isolate themselves with
    // their own tenants. Vitest gives each project fresh workers, so one PGlite per worker and project.
    pool: "forks",
    poolOptions: { forks: { isolate: false } },
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
