/**
 * The hosts of a PostgreSQL URL, which may name several (`postgres://u@a:5432,b:5433/db`, as
 * libpq takes them, for failover: docs/guide/topologies.md) and is then no WHATWG URL.
 */

export interface UrlHost {
  readonly host: string;
  readonly port: number;
}

/** the URL's hosts in order, or undefined for what is no postgres:// URL */
export function hostsOf(url: string): UrlHost[] | undefined {
  const [, authority] = /^postgres(?:ql)?:\/\/([^/?#]*)/.exec(url) ?? [];
  if (authority === undefined) return undefined;
  const hosts: UrlHost[] = [];
  for (const part of authority.slice(authority.lastIndexOf("@") + 1).split(",")) {
    if (!URL.canParse(`postgres://${part}`)) return undefined;
    const u = new URL(`postgres://${part}`);
    hosts.push({ host: u.hostname.replace(/^\[(.*)\]$/, "$1"), port: Number(u.port || 5432) });
  }
  return hosts;
}

/**
 * postgres.js options that name the URL's hosts starting at the `turn`-th: each connection of a
 * pool tries the hosts from the first on, so a pool replaced because its server stopped being the
 * primary (replaceable-pool.ts) starts at the next one, and finds a promoted standby even where
 * the old primary would still be taken (read-only by its setting, not in recovery). Nothing for
 * a URL of one host.
 */
export function hostsFrom(url: string, turn: number): { host?: string[]; port?: number[] } {
  const hosts = hostsOf(url);
  if (!hosts || hosts.length < 2) return {};
  const start = turn % hosts.length;
  const rotated = [...hosts.slice(start), ...hosts.slice(0, start)];
  return { host: rotated.map((h) => h.host), port: rotated.map((h) => h.port) };
}
