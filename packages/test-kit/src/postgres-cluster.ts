/**
 * A throwaway PostgreSQL cluster from the machine's binaries (`initdb`, `pg_ctl` on PATH), in a
 * temporary folder on a free loopback port, for tests that stop and restart the database under
 * load; and a streaming standby of one (`pg_basebackup -R`), for tests of replication and
 * failover. PostgreSQL refuses to run as root, so as root the binaries run as the `postgres` user.
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
  /** `pg_ctl stop -m immediate`: the server dies as in a crash, without a shutdown checkpoint */
  stopImmediately(): Promise<void>;
  start(): Promise<void>;
  /** `pg_ctl promote`: a standby ends recovery and accepts writes; resolves once it does */
  promote(): Promise<void>;
  /**
   * Restarts the server as a standby of `primary` (`standby.signal` and `primary_conninfo`), as
   * a failover tool does to a demoted primary; it is in recovery once this resolves, streaming
   * when its WAL has not gone past the point where `primary` was promoted
   */
  followAsStandby(primary: Cluster): Promise<void>;
  /** stops the server and removes its folder */
  destroy(): Promise<void>;
}

const binaries = ["initdb", "pg_ctl", "postgres"];

/** why a cluster cannot be started here, or undefined when it can */
export async function missingBinaries(names: readonly string[] = binaries): Promise<string | undefined> {
  const missing: string[] = [];
  for (const name of names) {
    try {
      await run("sh", ["-c", `command -v ${name}`]);
    } catch {
      missing.push(name);
    }
  }
  return missing.length === 0 ? undefined : `PostgreSQL binaries not on PATH: ${missing.join(", ")}`;
}

/** why a primary and a standby cannot be started here (`pg_basebackup` too), or undefined */
export const missingReplicationBinaries = () => missingBinaries([...binaries, "pg_basebackup"]);

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

const asRoot = process.getuid?.() === 0;
const pg = (command: string, args: string[]) =>
  asRoot ? run("runuser", ["-u", "postgres", "--", command, ...args]) : run(command, args);

/** a temporary folder the server's user owns */
async function clusterFolder(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "bizdata-pg-"));
  if (asRoot)
    chownSync(
      dir,
      Number((await run("id", ["-u", "postgres"])).stdout),
      Number((await run("id", ["-g", "postgres"])).stdout),
    );
  return dir;
}

/** serves the data directory `data` in `dir` on `port` with `settings` (`-c name=value` each) */
async function serve(dir: string, data: string, port: number, settings: readonly string[]): Promise<Cluster> {
  const options = [
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=60`,
    ...settings.map((s) => `-c ${s}`),
  ].join(" ");
  const ctl = (...args: string[]) => pg("pg_ctl", ["-D", data, "-l", join(dir, "log"), "-o", options, "-w", ...args]);
  await ctl("start");
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    restartImmediately: async () => void (await ctl("restart", "-m", "immediate")),
    stop: async () => void (await ctl("stop", "-m", "fast")),
    stopImmediately: async () => void (await ctl("stop", "-m", "immediate")),
    start: async () => void (await ctl("start")),
    promote: async () => void (await ctl("promote")),
    async followAsStandby(primary) {
      await ctl("stop", "-m", "fast");
      const conninfo = `primary_conninfo = 'host=127.0.0.1 port=${primary.port} user=postgres'`;
      await pg("sh", ["-c", `touch ${data}/standby.signal && echo "${conninfo}" >> ${data}/postgresql.auto.conf`]);
      await ctl("start");
    },
    async destroy() {
      await ctl("stop", "-m", "immediate").catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** a new cluster; `settings` are server settings (`name=value`) it starts with */
export async function startCluster(settings: readonly string[] = []): Promise<Cluster> {
  const dir = await clusterFolder();
  const data = join(dir, "data");
  await pg("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"]);
  return serve(dir, data, await freePort(), settings);
}

/**
 * A streaming standby of `primary`, copied by `pg_basebackup -R` (which writes the connection to
 * the primary and `standby.signal`), named `name`: its `cluster_name`, which its WAL receiver
 * gives the primary as `application_name`, so that `synchronous_standby_names = 'name'` on the
 * primary makes commits wait for it. Resolves once it is in recovery and accepting connections.
 */
export async function startStandby(primary: Cluster, name: string): Promise<Cluster> {
  const dir = await clusterFolder();
  const data = join(dir, "data");
  await pg("pg_basebackup", [
    ...["-h", "127.0.0.1", "-p", String(primary.port), "-U", "postgres"],
    ...["-D", data, "-R", "-X", "stream", "--no-sync"],
  ]);
  return serve(dir, data, await freePort(), [`cluster_name=${name}`, "hot_standby=on"]);
}
