/**
 * The serving process's last resort: an exception or rejection that no request caught. One that
 * comes from the database driver (a connection that died between requests, a driver defect like
 * the ones @bizdata/postgres, the project's fork of postgres.js, fixes) is logged and the process serves on: the pool
 * replaces the connection and requests answer 503 meanwhile. Anything else is a defect of ours:
 * logged as fatal, and the process exits non-zero as Node would have.
 */
import { isTransientDatabaseError } from "@bizdata/core";
import type { Logger } from "pino";

// a stack frame inside postgres.js, installed as the fork @bizdata/postgres or as plain postgres (npm or pnpm layout)
const DRIVER_FRAME = /[\\/]node_modules[\\/](?:@bizdata[\\/])?postgres[\\/]/;

/** whether `error` was raised by the database driver or reports the database's state */
export function isDriverFault(error: unknown): boolean {
  if (isTransientDatabaseError(error)) return true;
  if (!(error instanceof Error)) return false;
  if (error.name === "PostgresError") return true;
  // the throwing frame is the first "at …" line of the stack
  const frame = error.stack?.split("\n").find((line) => line.trimStart().startsWith("at "));
  return frame !== undefined && DRIVER_FRAME.test(frame);
}

export interface ProcessGuard {
  /** for `uncaughtException` and `unhandledRejection` alike */
  readonly handle: (error: unknown, origin: "uncaughtException" | "unhandledRejection") => void;
  /** removes the process listeners */
  readonly uninstall: () => void;
}

/** installs the guard on `process`; `exit` is replaceable for tests */
export function guardProcess(logger: Logger, exit: (code: number) => void = process.exit): ProcessGuard {
  const handle: ProcessGuard["handle"] = (error, origin) => {
    if (isDriverFault(error)) {
      logger.error({ err: error, origin }, "database driver error outside any request; serving on");
      return;
    }
    logger.fatal({ err: error, origin }, "uncaught error; exiting");
    exit(1);
  };
  const onException = (error: unknown) => handle(error, "uncaughtException");
  const onRejection = (reason: unknown) => handle(reason, "unhandledRejection");
  process.on("uncaughtException", onException);
  process.on("unhandledRejection", onRejection);
  return {
    handle,
    uninstall: () => {
      process.off("uncaughtException", onException);
      process.off("unhandledRejection", onRejection);
    },
  };
}
