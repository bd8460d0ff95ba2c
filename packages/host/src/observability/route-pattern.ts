/**
 * The route a request took, as a low-cardinality label: the matched Hono route with its
 * parameters as `{name}`, and for the entity API's catch-all the shape of the resource path
 * (`/api/{entity}({key})`, under the app's base path). Never a key or other value from the URL.
 */
import { BoundedMap } from "@bizdata/core";
import { parseResourcePath } from "@bizdata/odata";
import type { Context } from "hono";
import { matchedRoutes } from "hono/route";

/** `:id{[0-9a-f-]{36}}` or `:id` → `{id}` */
const placeholders = (path: string) => path.replace(/:(\w+)(\{(?:[^{}]|\{[^{}]*\})*\})?/g, "{$1}");

/**
 * The shape of an entity API path (after the base path), in the words of api-conventions: the entity
 * set, `({key})` where a segment has parentheses, `$count`, and `{segment}` for what follows
 * (a navigation property or a method: which one, only the model knows).
 */
function resourceShape(path: string): string {
  try {
    const [entity, ...rest] = parseResourcePath(path).segments;
    const parens = (s: { readonly args: unknown }) => (s.args === null ? "" : "({key})");
    const tail = rest.map((s) => (s.name === "$count" && s.qualifier === null ? "/$count" : `/{segment}${parens(s)}`));
    return `/{entity}${parens(entity!)}${tail.join("")}`;
  } catch {
    return "/{invalid}";
  }
}

const GUID = /[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}/g;
const shapes = new BoundedMap<string, string>(500);

/**
 * `resourceShape` for every request of the entity API: parsed once per path with its Guids
 * masked (a Guid never changes a shape), since parsing every request's path again cost a read
 * by key about a twentieth of its time.
 */
const cachedShape = (path: string): string => shapes.getOrMake(path.replace(GUID, "0"), resourceShape);

/**
 * The route pattern of the request `c` was made for, the entity API's under `basePath` (`/api`);
 * `unmatched` when no route takes its path
 */
export function routePattern(c: Context, basePath: string): string {
  // middleware (`app.use`) matches every method; the route that answers names one
  const route = matchedRoutes(c).find((r) => r.method !== "ALL");
  if (route === undefined) return "unmatched";
  if (route.path !== `${basePath}/*`) return placeholders(route.path);
  // as the URL has it, percent-encoded: the parser splits at `/` before it decodes
  return basePath + cachedShape(pathnameOf(c.req.url).slice(basePath.length + 1));
}

/** the path of an absolute URL as sent, without parsing the whole URL again (a request's URL is well formed) */
function pathnameOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  const end = url.search(/[?#]/);
  return url.slice(start, end === -1 ? undefined : end);
}
