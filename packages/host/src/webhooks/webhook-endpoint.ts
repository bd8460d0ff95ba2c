/**
 * Where a webhook may send (server-side request forgery is the risk: a tenant admin names a URL
 * and the host POSTs to it from inside its network). An endpoint is an https URL without
 * credentials or fragment, whose host is not this machine or a private network: an address of
 * those ranges is refused when the subscription is registered, and a name that resolves to one is
 * refused when an event is sent (the address connected to is the one checked, so a name that
 * changes its answer in between gains nothing). WEBHOOK_ALLOW_INSECURE lifts both, for a receiver
 * on this machine or the local network: plain http and any address.
 */
import { lookup } from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import { addressMatcher } from "../observability/trusted-proxies.js";

export const MAX_URL_LENGTH = 2048;

/**
 * This machine, private networks, link-local (cloud metadata services live there), carrier-grade
 * NAT, benchmarking, multicast and reserved ranges: nothing a public receiver has.
 */
const NOT_PUBLIC = addressMatcher([
  "0.0.0.0/8",
  "10.0.0.0/8",
  "100.64.0.0/10",
  "127.0.0.0/8",
  "169.254.0.0/16",
  "172.16.0.0/12",
  "192.0.0.0/24",
  "192.168.0.0/16",
  "198.18.0.0/15",
  "224.0.0.0/3",
  "::/128",
  "::1/128",
  "fc00::/7",
  "fe80::/10",
  "ff00::/8",
]);

/** whether `address` (an IP address) is one a public receiver can have; an IPv4 address written as IPv6 (`::ffff:a00:1`) counts as the IPv4 one it is (BlockList's rule) */
export const isPublicAddress = (address: string): boolean => !NOT_PUBLIC(address);

/** a URL's host as an IP address (without the brackets of an IPv6 one), or undefined for a name */
const addressOf = (hostname: string): string | undefined => {
  const bare = hostname.startsWith("[") ? hostname.slice(1, -1) : hostname;
  return isIP(bare) === 0 ? undefined : bare;
};

/** what is wrong with `text` as an endpoint, said for the one who registers it; undefined when nothing */
export function endpointProblem(text: string, allowInsecure: boolean): string | undefined {
  if (text.length > MAX_URL_LENGTH) return `The URL is longer than ${MAX_URL_LENGTH} characters.`;
  const url = URL.canParse(text) ? new URL(text) : undefined;
  if (url === undefined) return "The URL is not an absolute URL.";
  if (url.protocol !== "https:" && !(allowInsecure && url.protocol === "http:"))
    return allowInsecure ? "The URL must be http or https." : "The URL must be https.";
  if (url.username !== "" || url.password !== "") return "The URL must carry no user name or password.";
  if (url.hash !== "") return "The URL must have no fragment.";
  if (allowInsecure) return undefined;
  const address = addressOf(url.hostname);
  const local = url.hostname === "localhost" || url.hostname.endsWith(".localhost");
  if (local || (address !== undefined && !isPublicAddress(address)))
    return "The URL names this machine or a private network, which the host does not send to.";
  return undefined;
}

/** refused to connect: the name resolved to an address no public receiver has */
export class AddressRefused extends Error {
  override readonly name = "AddressRefused";
}

/**
 * dns.lookup for an outgoing connection that fails on an address that is not public, whichever
 * of its answers the connection would take (Node asks for all of them when it tries both families)
 */
export const publicLookup: LookupFunction = (hostname, options, callback) => {
  lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, "", 0);
    const refused = addresses.find((a) => !isPublicAddress(a.address));
    if (refused !== undefined)
      return callback(new AddressRefused(`${hostname} resolves to ${refused.address}, not a public address`), "", 0);
    if (options.all) return (callback as unknown as (e: null, a: typeof addresses) => void)(null, addresses);
    const [first] = addresses;
    if (first === undefined) return callback(new AddressRefused(`${hostname} has no address`), "", 0);
    callback(null, first.address, first.family);
  });
};

/** whether a URL's host is an address that is not public (a connection to it looks nothing up) */
export const namesPrivateAddress = (url: URL): boolean => {
  const address = addressOf(url.hostname);
  return address !== undefined && !isPublicAddress(address);
};
