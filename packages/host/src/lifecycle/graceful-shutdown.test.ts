import { createServer, request, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { drainable } from "./graceful-shutdown.js";

/** a server whose answer to /wait/N comes after N ms */
async function slowServer(): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    const ms = Number(req.url?.split("/").pop() ?? 0);
    setTimeout(() => res.end(`waited ${ms}`), ms);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return { server, port: typeof address === "object" && address ? address.port : 0 };
}

/** GET over a fresh connection: the status, body and Connection header, or the socket error's code */
function get(port: number, path: string): Promise<string> {
  return new Promise((resolve) => {
    const req = request({ host: "127.0.0.1", port, path }, (res) => {
      let body = "";
      res.on("data", (chunk) => {
        body += chunk;
      });
      res.on("end", () => resolve(`${res.statusCode} ${body} ${res.headers.connection}`));
    });
    req.on("error", (error: NodeJS.ErrnoException) => resolve(`error ${error.code}`));
    req.end();
  });
}

describe("draining an HTTP server", () => {
  let server: Server | undefined;
  afterEach(() => {
    server?.closeAllConnections();
    server?.close();
  });

  it("finishes the requests in flight, refuses new connections, and closes", async () => {
    const slow = await slowServer();
    server = slow.server;
    const drain = drainable(slow.server);
    const inFlight = [get(slow.port, "/wait/300"), get(slow.port, "/wait/100")];
    await new Promise((r) => setTimeout(r, 50));
    const drained = drain.drain(5_000);
    expect(await get(slow.port, "/wait/0")).toBe("error ECONNREFUSED");
    expect(await Promise.all(inFlight)).toEqual(["200 waited 300 close", "200 waited 100 close"]);
    expect(await drained).toEqual({ cut: false });
    expect(slow.server.listening).toBe(false);
  });

  it("cuts what is still in flight when the grace period runs out", async () => {
    const slow = await slowServer();
    server = slow.server;
    const drain = drainable(slow.server);
    const tooSlow = get(slow.port, "/wait/5000");
    await new Promise((r) => setTimeout(r, 50));
    expect(await drain.drain(100)).toEqual({ cut: true });
    expect(await tooSlow).toBe("error ECONNRESET");
  });
});
