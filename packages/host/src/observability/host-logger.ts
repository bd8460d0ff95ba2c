/**
 * The host's own logger, when the application passes none: pino at LOG_LEVEL on standard output,
 * buffered and written asynchronously. Written synchronously, the log line of each request cost a
 * point read a sixth of its throughput on two cores (2,229 req/s at `info`, 2,729 at `warn`);
 * written asynchronously line by line, each line is a write of its own on libuv's thread pool,
 * which costs about as much. So lines gather up to BUFFERED bytes (a few dozen lines) before a
 * write, and what has gathered is written at least every FLUSH_MS, so that a quiet host's lines
 * still show within a quarter of a second. What is buffered is written when the host closes
 * (server.ts: `flushed`) and, by pino, when the process exits: the fatal line of an uncaught
 * error too (process-guard.ts exits after it).
 */
import pino, { type DestinationStream, type Logger } from "pino";

const BUFFERED = 8 * 1024;
const FLUSH_MS = 250;

/** standard output as the destination, one for the process however many apps it serves (as there is one standard output) */
let stdout: (DestinationStream & { flush(): void }) | undefined;

function standardOutput() {
  if (stdout === undefined) {
    const destination = pino.destination({ dest: 1, sync: false, minLength: BUFFERED });
    setInterval(() => destination.flush(), FLUSH_MS).unref();
    stdout = destination;
  }
  return stdout;
}

export const hostLogger = (level: string): Logger => pino({ level }, standardOutput());

/**
 * settles once the lines `logger` has buffered are written (at once for a synchronous destination);
 * a destination that cannot write has nowhere to report it, and closing goes on
 */
export const flushed = (logger: Logger): Promise<void> => new Promise((resolve) => logger.flush(() => resolve()));
