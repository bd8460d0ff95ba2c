/**
 * A throwaway PgBouncer (Debian's `pgbouncer`) in transaction pooling mode in front of a
 * PostgreSQL server, on a free loopback port, for the tests of the driver's transaction mode.
 * Clients authenticate to it without a password (`auth_type = trust`) and it connects to the
 * server as the client's own user, so a test picks the role the pooler connects as by the user
 * in the URL. PgBouncer refuses to run as root, so as root it runs as the `postgres` user.
 */
import { execFile } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface Pgbouncer {
  /** the server's URL with the pooler's address, as `user` (default: the server URL's) */
  url(user?: string): string;
  stop(): Promise<void>;
}

/** why no PgBouncer can be started here, or undefined when it can */
export async function missingPgbouncer(): Promise<string | undefined> {
  try {
    await run("sh", ["-c", "command -v pgbouncer || test -x /usr/sbin/pgbouncer"]);
    return undefined;
  } catch {
    return "pgbouncer is not installed (apt-get install pgbouncer)";
  }
}

async function freePort(): Promise<number> {
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

/**
 * PgBouncer in front of the server `serverUrl` names, serving its database to the `users` listed
 * (trusted, no password), with `poolSize` server connections per user at most.
 */
export async function startPgbouncer(
  serverUrl: string,
  { users = ["postgres"], poolSize = 20 }: { users?: readonly string[]; poolSize?: number } = {},
): Promise<Pgbouncer> {
  const server = new URL(serverUrl);
  const root = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), "bizdata-pgbouncer-"));
  const port = await freePort();
  writeFileSync(join(dir, "users.txt"), users.map((u) => `"${u}" ""\n`).join(""));
  writeFileSync(
    join(dir, "pgbouncer.ini"),
    [
      "[databases]",
      `* = host=${server.hostname} port=${server.port || 5432}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = trust",
      `auth_file = ${join(dir, "users.txt")}`,
      "pool_mode = transaction",
      `default_pool_size = ${poolSize}`,
      "max_client_conn = 1000",
      `logfile = ${join(dir, "log")}`,
      `pidfile = ${join(dir, "pid")}`,
      "",
    ].join("\n"),
  );
  if (root) {
    const [uid, gid] = await Promise.all(
      ["-u", "-g"].map(async (flag) => Number((await run("id", [flag, "postgres"])).stdout)),
    );
    for (const name of ["", "users.txt", "pgbouncer.ini"]) chownSync(join(dir, name), uid!, gid!);
  }
  const command = ["pgbouncer", "-d", join(dir, "pgbouncer.ini")];
  await (root ? run("runuser", ["-u", "postgres", "--", ...command]) : run(command[0]!, command.slice(1)));
  await listening(port, dir);
  const pid = Number(readFileSync(join(dir, "pid"), "utf8"));
  return {
    url(user) {
      const url = new URL(serverUrl);
      url.host = `127.0.0.1:${port}`;
      if (user !== undefined) url.username = user;
      return url.href;
    },
    async stop() {
      try {
        process.kill(pid, "SIGTERM");
      } catch {
        // gone already
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** until the daemon has written its pid file and accepts connections */
async function listening(port: number, dir: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (!existsSync(join(dir, "pid"))) {
      await new Promise((r) => setTimeout(r, 50));
      continue;
    }
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1", () => {
        socket.end();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  const log = existsSync(join(dir, "log")) ? readFileSync(join(dir, "log"), "utf8") : "";
  throw new Error(`PgBouncer did not listen on port ${port}: ${log.slice(-500)}`);
}
