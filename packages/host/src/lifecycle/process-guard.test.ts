import { Writable } from "node:stream";
import postgres from "@bizdata/postgres";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { guardProcess, isDriverFault, type ProcessGuard } from "./process-guard.js";

/** a pino logger whose lines land in `lines` */
function capture() {
  const lines: { level: number; msg: string; origin?: string }[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { lines, logger: pino({ level: "info" }, stream) };
}

/** an error thrown from inside the driver package, as postgres.js 3.4.9 did before the fork's fixes */
function thrownInDriver(file = "/app/node_modules/@bizdata/postgres/src/connection.js"): Error {
  const error = new TypeError("Cannot read properties of null (reading 'write')");
  error.stack = `${error.name}: ${error.message}\n    at Immediate.nextWrite (file://${file}:255:22)\n    at process.processImmediate (node:internal/timers:483:21)`;
  return error;
}

describe("the process guard", () => {
  let guard: ProcessGuard | undefined;
  afterEach(() => guard?.uninstall());

  it("logs a driver error and serves on", async () => {
    const { lines, logger } = capture();
    const exits: number[] = [];
    guard = guardProcess(logger, (code) => exits.push(code));
    // a real one: the driver's refusal to connect to a port nobody listens on
    const sql = postgres("postgres://nobody@127.0.0.1:9/none", { max: 1, connect_timeout: 2 });
    const refused = await sql`select 1`.catch((error: unknown) => error);
    await sql.end({ timeout: 0 });
    guard.handle(refused, "unhandledRejection");
    guard.handle(thrownInDriver(), "uncaughtException");
    expect(exits).toEqual([]);
    expect(lines.map((l) => [l.level, l.origin])).toEqual([
      [50, "unhandledRejection"],
      [50, "uncaughtException"],
    ]);
  });

  it("exits non-zero on any other error, after logging it as fatal", () => {
    const { lines, logger } = capture();
    const exits: number[] = [];
    guard = guardProcess(logger, (code) => exits.push(code));
    guard.handle(new TypeError("undefined is not a function"), "uncaughtException");
    guard.handle("a string rejection", "unhandledRejection");
    expect(exits).toEqual([1, 1]);
    expect(lines.map((l) => l.level)).toEqual([60, 60]);
  });

  it("tells driver faults from others", () => {
    expect(isDriverFault(Object.assign(new Error("terminating connection"), { code: "57P01" }))).toBe(true);
    expect(isDriverFault(Object.assign(new Error("syntax"), { name: "PostgresError", code: "42601" }))).toBe(true);
    expect(isDriverFault(thrownInDriver())).toBe(true);
    expect(
      isDriverFault(thrownInDriver("/app/node_modules/.pnpm/postgres@3.4.9/node_modules/postgres/src/connection.js")),
    ).toBe(true);
    expect(isDriverFault(new Error("ours"))).toBe(false);
    expect(isDriverFault(Object.assign(new Error("bad input"), { code: "ERR_INVALID_ARG_TYPE" }))).toBe(false);
    expect(isDriverFault(undefined)).toBe(false);
  });
});
