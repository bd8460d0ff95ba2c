/**
 * One change stream's body (Server-Sent Events): from its start position on, each change of the
 * entities it follows as an event `change` whose id is the change's position (stream-position.ts),
 * in log order, read whenever the tenant's feed (change-feeds.ts) says there may be more; a
 * `: heartbeat` comment every so often, so that proxies keep the connection and a dead one is
 * found. What the client has not taken is bounded: past `maxBufferBytes` of unread events the
 * stream is closed (and its socket with it) rather than kept growing, and the client resumes from
 * the last event it got. A read that fails (the database away) ends the stream the same way.
 */
import type { ChangeRow } from "@bizdata/core";
import { encodePosition, type StreamPosition } from "./stream-position.js";

/** rows read at once: a page of events, then the next while the stream has more to send */
export const STREAM_PAGE = 200;

export interface ChangeStreamOptions {
  /** where the stream starts: after this position */
  readonly start: StreamPosition;
  /** the rows after `position`, at most STREAM_PAGE, in log order */
  readonly read: (position: StreamPosition) => Promise<readonly ChangeRow[]>;
  /** registers the stream's wake-up with its tenant's feed; returns the function that unregisters it */
  readonly watch: (wake: () => void) => () => void;
  /** a row's event data (JSON) */
  readonly data: (row: ChangeRow) => string;
  readonly heartbeatMs: number;
  readonly maxBufferBytes: number;
  /** also sends the start position as a first id, for a client that reconnects before any change */
  readonly announceStart: boolean;
  /** the stream ended, for whatever reason; `why` is undefined when the client went away */
  readonly ended: (why: "closed" | "slow" | "failed" | undefined, err?: unknown) => void;
  /** cuts the connection the stream goes out on (a slow client's), where there is one */
  readonly cut?: (() => void) | undefined;
}

export interface ChangeStream {
  readonly body: ReadableStream<Uint8Array>;
  /** ends the stream cleanly: what was sent is delivered, then the response ends */
  end(): void;
}

export function changeStream(options: ChangeStreamOptions): ChangeStream {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let position = options.start;
  let closed = false;
  let pending = true;
  let reading = false;
  let heartbeat: NodeJS.Timeout | undefined;
  let unwatch: (() => void) | undefined;

  const finish = (why: "closed" | "slow" | "failed" | undefined, err?: unknown) => {
    if (closed) return false;
    closed = true;
    clearInterval(heartbeat);
    unwatch?.();
    options.ended(why, err);
    return true;
  };
  const end = (why: "closed" | "slow" | "failed", err?: unknown) => {
    if (!finish(why, err)) return;
    if (why === "slow") options.cut?.();
    controller.close();
  };
  const send = (text: string) => {
    if (closed) return;
    controller.enqueue(encoder.encode(text));
    // what the client has not taken, beyond what its socket holds
    if ((controller.desiredSize ?? 0) < 0) end("slow");
  };
  const pump = async () => {
    reading = true;
    try {
      while (pending && !closed) {
        pending = false;
        for (;;) {
          const rows = await options.read(position);
          for (const row of rows) {
            if (closed) return;
            position = { xid: row.xid, seq: row.seq, at: Date.now() };
            send(`id: ${encodePosition(position)}\nevent: change\ndata: ${options.data(row)}\n\n`);
          }
          if (rows.length < STREAM_PAGE || closed) break;
        }
      }
    } catch (err) {
      end("failed", err);
    } finally {
      reading = false;
    }
  };
  const wake = () => {
    pending = true;
    if (!reading) void pump();
  };

  const body = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        if (options.announceStart) send(`id: ${encodePosition(position)}\n\n`);
        heartbeat = setInterval(() => send(": heartbeat\n\n"), options.heartbeatMs);
        // watching before the first read: a change that the read misses wakes the stream again
        unwatch = options.watch(wake);
        void pump();
      },
      cancel() {
        finish(undefined);
      },
    },
    { highWaterMark: options.maxBufferBytes, size: (chunk) => chunk.byteLength },
  );
  return { body, end: () => end("closed") };
}
