/**
 * The host's own logger writes standard output buffered and asynchronously (host-logger.ts): each
 * test runs a Node process of its own with it, since the destination is that process's standard
 * output. A quiet process's lines still come out while it runs; a fatal error's line comes out
 * as the process exits; what a process logs under load comes out whole, in order.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** a Node process running `script` (ES module source) with the logger and the process guard importable */
function run(script: string) {
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    cwd: here("."),
    env: { ...process.env, LOGGER: here("./host-logger.ts"), GUARD: here("../lifecycle/process-guard.ts") },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const lines = () =>
    stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { msg: string; level: number; i?: number; err?: { message: string } });
  return { child, lines, exited, stderr: () => stderr };
}

const until = async (ok: () => boolean, what: string) => {
  for (let waited = 0; !ok(); waited += 20) {
    if (waited > 10_000) throw new Error(`waited 10 s for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

describe("the host's logger", () => {
  it("writes a quiet process's line while the process runs, though it fills no buffer", async () => {
    // the process logs one line and then waits for its standard input to close
    const p = run(`
      const { hostLogger } = await import(process.env.LOGGER);
      hostLogger("info").info({ i: 1 }, "one quiet line");
      process.stdin.resume();
      process.stdin.on("end", () => process.exit(0));
    `);
    await until(() => p.lines().length > 0, "the line");
    expect(p.lines()).toMatchObject([{ msg: "one quiet line", i: 1, level: 30 }]);
    p.child.stdin.end();
    expect(await p.exited).toBe(0);
  });

  it("writes the fatal line of an uncaught error, which ends the process", async () => {
    const p = run(`
      const { hostLogger } = await import(process.env.LOGGER);
      const { guardProcess } = await import(process.env.GUARD);
      const logger = hostLogger("info");
      guardProcess(logger);
      logger.info("before");
      setTimeout(() => { throw new Error("a defect"); }, 10);
    `);
    expect(await p.exited).toBe(1);
    expect(p.lines().map((l) => l.msg)).toEqual(["before", "uncaught error; exiting"]);
    expect(p.lines()[1]).toMatchObject({ level: 60, err: { message: "a defect" } });
  });

  it("writes every line of a burst, in order, however many writes they take", async () => {
    const p = run(`
      const { hostLogger, flushed } = await import(process.env.LOGGER);
      const logger = hostLogger("info");
      for (let i = 0; i < 20000; i++) logger.info({ i }, "burst");
      await flushed(logger);
    `);
    expect(await p.exited).toBe(0);
    const lines = p.lines();
    expect(lines).toHaveLength(20000);
    expect(lines.every((line, i) => line.i === i)).toBe(true);
  });

  it("logs nothing below its level", async () => {
    const p = run(`
      const { hostLogger, flushed } = await import(process.env.LOGGER);
      const logger = hostLogger("warn");
      logger.info("hidden");
      logger.warn("shown");
      await flushed(logger);
    `);
    expect(await p.exited).toBe(0);
    expect(p.lines().map((l) => l.msg)).toEqual(["shown"]);
  });
});
