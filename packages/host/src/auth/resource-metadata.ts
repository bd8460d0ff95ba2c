/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728): how a client (an agent connector, an MCP
 * client) finds out where to get a token for a resource of this host. Each resource — the API at
 * its base path, the MCP endpoint — has its document at `/.well-known/oauth-protected-resource`
 * followed by the resource's path (RFC 9728 §3.1), and every 401 names it in `WWW-Authenticate`.
 */
import { SCOPES, type TrustedIssuer } from "./trusted-issuers.js";

export const WELL_KNOWN = "/.well-known/oauth-protected-resource";

export function resourceMetadata(resource: string, issuers: readonly Pick<TrustedIssuer, "issuer">[], name: string) {
  return {
    resource,
    authorization_servers: issuers.map((i) => i.issuer),
    scopes_supported: [SCOPES.read, SCOPES.write],
    bearer_methods_supported: ["header"],
    resource_name: name,
  };
}
