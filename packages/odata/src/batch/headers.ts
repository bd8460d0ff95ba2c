/**
 * Header fields as the batch formats carry them: names lower-cased, repeated fields joined with
 * ", " (RFC 9110 §5.3), and `Content-Type` parameters (RFC 9110 §8.3.1).
 */

/** RFC 9110 §5.6.2 token: a header name, a media type or parameter name */
const token = "[!#$%&'*+\\-.^_`|~0-9A-Za-z]+";
const tokenPattern = new RegExp(`^${token}$`);

/** A record built with `Object.fromEntries`, so a name like `__proto__` stays an ordinary key. */
export function headerRecord(entries: Iterable<readonly [string, string]>): Record<string, string> {
  const fields = new Map<string, string>();
  for (const [name, value] of entries) {
    const key = name.toLowerCase();
    const earlier = fields.get(key);
    fields.set(key, earlier === undefined ? value : `${earlier}, ${value}`);
  }
  return Object.fromEntries(fields);
}

/** A name that is a token and a value without CR, LF or NUL (RFC 9110 §5.1, §5.5): what HTTP can carry. */
export const isHeaderField = (name: string, value: string): boolean =>
  tokenPattern.test(name) && !/[\0\r\n]/.test(value);

/** `Name: value` → [name, value]; undefined for a malformed line (obsolete line folding included). */
export function splitHeaderLine(line: string): [string, string] | undefined {
  const colon = line.indexOf(":");
  const name = line.slice(0, colon);
  // trim(), not a regular expression: /[ \t]+$/ takes quadratic time on long runs of spaces
  const value = line.slice(colon + 1).trim();
  return colon > 0 && isHeaderField(name, value) ? [name, value] : undefined;
}

export interface MediaType {
  /** lower-cased `type/subtype` */
  readonly type: string;
  /** parameter values, names lower-cased */
  readonly parameters: ReadonlyMap<string, string>;
}

const mediaTypePattern = new RegExp(`^(${token}/${token})[ \\t]*`);
/** RFC 9110 §5.6.6: `*( OWS ";" OWS [ name=value ] )`, the value a token or a quoted string */
const parameterPattern = new RegExp(
  `[ \\t]*;[ \\t]*(?:(${token})=(?:(${token})|"((?:[^"\\\\]|\\\\.)*)"))?[ \\t]*`,
  "sy",
);

/** Parses `type/subtype; name=value; name="quoted"`; undefined when it is not that shape. */
export function parseMediaType(text: string): MediaType | undefined {
  const trimmed = text.trim();
  const match = mediaTypePattern.exec(trimmed);
  if (!match) return undefined;
  const parameters = new Map<string, string>();
  parameterPattern.lastIndex = match[0].length;
  while (parameterPattern.lastIndex < trimmed.length) {
    const parameter = parameterPattern.exec(trimmed);
    if (!parameter) return undefined;
    const [, name, value, quoted] = parameter;
    if (name !== undefined) parameters.set(name.toLowerCase(), value ?? quoted!.replace(/\\(.)/gs, "$1"));
  }
  return { type: match[1]!.toLowerCase(), parameters };
}
