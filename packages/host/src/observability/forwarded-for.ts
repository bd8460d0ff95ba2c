/**
 * The addresses a request was forwarded for, from `X-Forwarded-For` or `Forwarded` (RFC 7239
 * section 5.2), nearest hop last. An entry that is not an IP address (malformed, `unknown`, an
 * obfuscated node name, no `for=` at all) is `undefined`: the chain cannot be followed past it.
 */
import { isIP } from "node:net";

/** a node as proxies write it: `1.2.3.4`, `1.2.3.4:80`, `::1`, `[::1]`, `[::1]:80` */
function nodeAddress(text: string): string | undefined {
  const node = text.trim();
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(node);
  const address = bracketed ? bracketed[1]! : (/^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(node)?.[1] ?? node);
  return isIP(address) === 0 ? undefined : address;
}

/** `X-Forwarded-For: client, proxy1, proxy2` */
export const xForwardedFor = (value: string): (string | undefined)[] => value.split(",").map(nodeAddress);

/** splits on `sep` outside quoted strings; undefined when a quote is left open */
function splitOutsideQuotes(text: string, sep: string): string[] | undefined {
  const parts: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted && ch === "\\") i++;
    else if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === sep) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  if (quoted) return undefined;
  parts.push(text.slice(start));
  return parts;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** the content of a quoted-string, unescaped; undefined when `text` is not one */
const quotedString = (text: string) => /^"((?:[^"\\]|\\.)*)"$/.exec(text)?.[1]?.replace(/\\(.)/g, "$1");

/**
 * The `for` node of one forwarded-element (`for=…;proto=…;by=…`); undefined when the element is
 * malformed or has no `for`. An unquoted IPv6 or `address:port` is taken although the RFC asks
 * for quotes, because proxies configured by hand write it so.
 */
function elementFor(element: string): string | undefined {
  const pairs = splitOutsideQuotes(element, ";");
  if (pairs === undefined) return undefined;
  let node: string | undefined;
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    const name = pair.slice(0, eq).trim();
    const raw = pair.slice(eq + 1).trim();
    const value = quotedString(raw) ?? (/^[^\s"]+$/.test(raw) ? raw : undefined);
    if (eq < 0 || !TOKEN.test(name) || value === undefined) return undefined;
    if (name.toLowerCase() !== "for") continue;
    // a parameter occurs at most once per element (RFC 7239 section 4)
    if (node !== undefined) return undefined;
    node = value;
  }
  return node === undefined ? undefined : nodeAddress(node);
}

/** `Forwarded: for=192.0.2.43, for="[2001:db8::17]:4711";proto=https` */
export const forwarded = (value: string): (string | undefined)[] =>
  splitOutsideQuotes(value, ",")?.map(elementFor) ?? [undefined];
