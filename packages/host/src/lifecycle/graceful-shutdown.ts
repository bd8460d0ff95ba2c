/**
 * Stopping an HTTP server without cutting requests short: stop accepting connections, let the
 * requests in flight finish, close each keep-alive connection as soon as it has nothing in flight
 * (responses sent while draining carry `Connection: close`), and after the grace period cut what
 * is left. A request cut that way had its transaction still open: closing the pool afterwards
 * rolls it back, so it is either applied and answered or not applied.
 */
import type { Server, ServerResponse } from "node:http";

export interface Drainable {
  /** resolves once every connection is closed; `cut`: the grace period ran out first */
  drain(graceMs: number): Promise<{ cut: boolean }>;
}

// how often connections that went idle while draining are closed
const IDLE_SWEEP_MS = 50;

export function drainable(server: Server): Drainable {
  let draining = false;
  const open = new Set<ServerResponse>();
  server.prependListener("request", (_request, response: ServerResponse) => {
    if (draining) response.setHeader("Connection", "close");
    open.add(response);
    response.once("close", () => open.delete(response));
  });
  return {
    async drain(graceMs) {
      draining = true;
      for (const response of open) if (!response.headersSent) response.setHeader("Connection", "close");
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
      server.closeIdleConnections();
      let cut = false;
      const deadline = setTimeout(() => {
        cut = true;
        server.closeAllConnections();
      }, graceMs);
      await closed;
      clearInterval(sweep);
      clearTimeout(deadline);
      return { cut };
    },
  };
}
