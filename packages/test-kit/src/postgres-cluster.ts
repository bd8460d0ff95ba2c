/**
 * A throwaway PostgreSQL cluster from the machine's binaries (`initdb`, `pg_ctl` on PATH), in a
 * temporary folder on a free loopback port, for tests that stop and restart the database under
 * load. PostgreSQL refuses to run as root, so as root the binaries run as the `postgres` user.
 */
import { execFile } from "node:child_process";
import { chownSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface Cluster {
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  readonly url: string;
  readonly port: number;
  /** `pg_ctl restart -m immediate`: every backend dies at once, as in a crash */
  restartImmediately(): Promise<void>;
  /** `pg_ctl stop -m fast`: sessions are terminated, then the server shuts down */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** stops the server and removes its folder */
  destroy(): Promise<void>;
}

const binaries = ["initdb", "pg_ctl", "postgres"];

/** why a cluster cannot be started here, or undefined when it can */
export async function missingBinaries(): Promise<string | undefined> {
  const missing: string[] = [];
  for (const name of binaries) {
    try {
      await run("sh", ["-c", `command -v ${name}`]);
    } catch {
      missing.push(name);
    }
  }
  return missing.length === 0 ? undefined : `PostgreSQL binaries not on PATH: ${missing.join(", ")}`;
}

/** a loopback port nobody listens on now */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

export async function startCluster(): Promise<Cluster> {
  const root = process.getuid?.() === 0;
  const pg = (command: string, args: string[]) =>
    root ? run("runuser", ["-u", "postgres", "--", command, ...args]) : run(command, args);
  const dir = mkdtempSync(join(tmpdir(), "bizdata-pg-"));
  if (root)
    chownSync(
      dir,
      Number((await run("id", ["-u", "postgres"])).stdout),
      Number((await run("id", ["-g", "postgres"])).stdout),
    );
  const data = join(dir, "data");
  await pg("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"]);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=60`;
  const ctl = (...args: string[]) => pg("pg_ctl", ["-D", data, "-l", join(dir, "log"), "-o", options, "-w", ...args]);
  await ctl("start");
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    restartImmediately: async () => void (await ctl("restart", "-m", "immediate")),
    stop: async () => void (await ctl("stop", "-m", "fast")),
    start: async () => void (await ctl("start")),
    async destroy() {
      await ctl("stop", "-m", "immediate").catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
