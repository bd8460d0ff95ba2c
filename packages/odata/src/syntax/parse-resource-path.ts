import { defaultQueryLimits, type QueryLimits } from "../limits.js";
import type { Literal, PathSegment, ResourcePath } from "./ast.js";
import { runRule } from "./run-rule.js";
import { QuerySyntaxError } from "./syntax-error.js";

/**
 * Parses the resource path after the service root (spec 4.2 and 4.8) as it appears in the URL,
 * percent-encoded: split at each raw `/` first, then each segment decoded and parsed. So `%2F`
 * inside a key or a parameter value is part of that value, and a raw `/` always ends a segment
 * (RFC 3986 §2.2: an encoded delimiter is data). Positions in errors and in the tree count
 * characters of the decoded path, segments joined by `/`.
 *
 * @example parseResourcePath("SalesOrder/bizdata.GetOpenOrders(customerId='C%2F1')")
 * @throws QuerySyntaxError with option `path`
 */
export function parseResourcePath(path: string, limits: QueryLimits = defaultQueryLimits): ResourcePath {
  const raw = path.split("/");
  const segments: PathSegment[] = [];
  let offset = 0;
  for (let i = 0; i < raw.length; i++) {
    const text = decoded(raw[i]!, offset);
    let segment: PathSegment;
    try {
      segment = runRule("path", text, limits, (p) => p.pathSegment());
    } catch (error) {
      if (!(error instanceof QuerySyntaxError)) throw error;
      // `('a/b')`: the raw `/` split the quoted value
      const split = i < raw.length - 1 && error.problem === "unterminated string literal";
      const problem = split ? `${error.problem}; a '/' inside a quoted value is written %2F` : error.problem;
      throw new QuerySyntaxError("path", offset + error.position, problem, { cause: error });
    }
    // as in an expression's path (URL conventions 4.8): nothing addresses into a count
    if (segments.at(-1)?.name === "$count" && segments.at(-1)?.qualifier === null) {
      throw new QuerySyntaxError("path", offset, "'$count' must be the last segment of a path");
    }
    segments.push(offset === 0 ? segment : moved(segment, offset));
    offset += text.length + 1;
  }
  return { segments };
}

function decoded(segment: string, offset: number): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    const at = segment.search(/%(?![0-9A-Fa-f]{2})/);
    throw new QuerySyntaxError(
      "path",
      offset + Math.max(0, at),
      `malformed percent-encoding in '${segment}'; a '%' is written %25`,
    );
  }
}

/** the segment with every position `offset` further on */
const moved = (segment: PathSegment, offset: number): PathSegment => ({
  ...segment,
  pos: segment.pos + offset,
  args:
    segment.args?.map((a) => ({
      ...a,
      pos: a.pos + offset,
      value: { ...a.value, pos: a.value.pos + offset } as Literal,
    })) ?? null,
});
