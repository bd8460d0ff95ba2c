/**
 * The route a request took, as a low-cardinality label: the matched Hono route with its
 * parameters as `{name}`, and for the entity API's catch-all the shape of the resource path
 * (`/api/{entity}({key})`). Never a key or other value from the URL.
 */
import { parseResourcePath } from "@bizdata/odata";
import type { Context } from "hono";
import { matchedRoutes } from "hono/route";

/** `:id{[0-9a-f-]{36}}` or `:id` → `{id}` */
const placeholders = (path: string) => path.replace(/:(\w+)(\{(?:[^{}]|\{[^{}]*\})*\})?/g, "{$1}");

/** the shape of an entity API path (after `/api/`), in the words of api-conventions */
function resourceShape(path: string): string {
  try {
    const resource = parseResourcePath(path);
    switch (resource.kind) {
      case "collection":
        return "/api/{entity}";
      case "count":
        return "/api/{entity}/$count";
      case "entity":
        return "/api/{entity}({key})";
      case "method":
        return resource.key === null ? "/api/{entity}/{method}" : "/api/{entity}({key})/{method}";
    }
  } catch {
    return "/api/{invalid}";
  }
}

/** the route pattern of the request `c` was made for; `unmatched` when no route takes its path */
export function routePattern(c: Context): string {
  // middleware (`app.use`) matches every method; the route that answers names one
  const route = matchedRoutes(c).find((r) => r.method !== "ALL");
  if (route === undefined) return "unmatched";
  if (route.path !== "/api/*") return placeholders(route.path);
  // c.req.path is decoded already, as the entity routes decode it
  return resourceShape(c.req.path.slice("/api/".length));
}
