/**
 * Which client a request came from when it passed through reverse proxies (TRUSTED_PROXIES).
 * The forwarding header is only believed as far as the hops that wrote it are trusted: walking
 * from the connection's peer towards the client, each trusted hop hands over to the address it
 * says it received the request from; the first hop that is not trusted is the client. Only the
 * one header the proxies are set to maintain is read: a client can send either header itself,
 * and a proxy that appends to one passes the other through unchanged.
 */
import { BlockList, isIP } from "node:net";
import { forwarded, xForwardedFor } from "./forwarded-for.js";

export type TrustedProxies =
  | { readonly kind: "none" }
  /** the nearest `count` hops, the connection's peer first */
  | { readonly kind: "hops"; readonly count: number }
  /** addresses and CIDR ranges, or `loopback` and `private` */
  | { readonly kind: "addresses"; readonly entries: readonly string[] };

export interface ProxySettings {
  /** TRUSTED_PROXIES */
  readonly trusted: TrustedProxies;
  /** PROXY_HEADER: the header the trusted proxies maintain */
  readonly header: "x-forwarded-for" | "forwarded";
}

export const noProxies: ProxySettings = { trusted: { kind: "none" }, header: "x-forwarded-for" };

const NAMED: Record<string, readonly string[]> = {
  loopback: ["127.0.0.0/8", "::1/128"],
  private: ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"],
};

/** `address` or `address/prefix`, checked; an error that names the entry otherwise */
function addRange(list: BlockList, entry: string): void {
  const [address = "", prefix, ...rest] = entry.split("/");
  const family = isIP(address);
  const bits = prefix === undefined ? undefined : Number(prefix);
  const max = family === 6 ? 128 : 32;
  if (family === 0 || rest.length > 0 || (bits !== undefined && !(Number.isInteger(bits) && bits >= 0 && bits <= max)))
    throw new Error(`TRUSTED_PROXIES entry "${entry}" is not an IP address, a CIDR range, loopback or private.`);
  const type = family === 6 ? "ipv6" : "ipv4";
  if (bits === undefined) list.addAddress(address, type);
  else list.addSubnet(address, bits, type);
}

/** a test for addresses in `entries`: addresses, CIDR ranges, `loopback`, `private` */
export function addressMatcher(entries: readonly string[]): (address: string) => boolean {
  const list = new BlockList();
  for (const entry of entries) for (const range of NAMED[entry] ?? [entry]) addRange(list, range);
  return (address) => {
    const family = isIP(address);
    return family !== 0 && list.check(address, family === 6 ? "ipv6" : "ipv4");
  };
}

/** `TRUSTED_PROXIES`: empty (none), a hop count, or a comma-separated list of addresses and ranges */
export function parseTrustedProxies(raw: string | undefined): TrustedProxies {
  const text = raw?.trim() ?? "";
  if (text === "") return { kind: "none" };
  if (/^\d+$/.test(text)) {
    const count = Number(text);
    return count === 0 ? { kind: "none" } : { kind: "hops", count };
  }
  const entries = text.split(",").map((e) => e.trim());
  // checked now, so that a typo fails at start
  addressMatcher(entries);
  return { kind: "addresses", entries };
}

/** whether the hop at `address`, `hop` steps from this host (0: the connection's peer), is trusted */
function trustFunction(trusted: TrustedProxies): (address: string, hop: number) => boolean {
  switch (trusted.kind) {
    case "none":
      return () => false;
    case "hops":
      return (_, hop) => hop < trusted.count;
    case "addresses":
      return addressMatcher(trusted.entries);
  }
}

/** `::ffff:1.2.3.4` (an IPv4 client of a dual-stack socket) as `1.2.3.4`, so one client has one address */
const canonical = (address: string) => (/^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(address) ? address.slice(7) : address);

/**
 * The client address resolver for `settings`: from the connection's peer (undefined in-process)
 * and the request's headers. A malformed entry ends the walk at the nearest hop known.
 */
export function clientAddressOf(
  settings: ProxySettings,
): (peer: string | undefined, headers: Headers) => string | undefined {
  const trusted = trustFunction(settings.trusted);
  const parse = settings.header === "forwarded" ? forwarded : xForwardedFor;
  const walk = (peer: string, headers: Headers): string => {
    if (!trusted(peer, 0)) return peer;
    const value = headers.get(settings.header);
    if (value === null) return peer;
    const chain = parse(value);
    let address = peer;
    for (let hop = 0; trusted(address, hop); hop++) {
      const next = chain[chain.length - 1 - hop];
      if (next === undefined) return address;
      address = next;
    }
    return address;
  };
  return (peer, headers) => (peer === undefined ? undefined : canonical(walk(peer, headers)));
}

/** `PROXY_HEADER` */
export function parseProxyHeader(raw: string | undefined): ProxySettings["header"] {
  const value = raw?.trim().toLowerCase() || "x-forwarded-for";
  if (value === "x-forwarded-for" || value === "forwarded") return value;
  throw new Error(`PROXY_HEADER=${raw} is neither x-forwarded-for nor forwarded.`);
}
