/**
 * The caller of one MCP request as authentication established it, and its calls of the services:
 * the route puts it into the request's AuthInfo (`extra.caller`), where every handler finds it.
 */
import { type AuthInfo, ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import type { Principal } from "../auth/principal.js";
import type { ApiCalls } from "./api-calls.js";

export interface McpCaller {
  readonly principal: Principal;
  readonly api: ApiCalls;
}

/** the AuthInfo the SDK hands to the handlers of a request of `caller`'s, who sent `token` */
export const authInfoOf = (caller: McpCaller, token: string): AuthInfo => ({
  token,
  clientId: caller.principal.username,
  scopes: [...(caller.principal.scopes ?? [])],
  extra: { caller },
});

export function callerOf(ctx: { http?: { authInfo?: AuthInfo } }): McpCaller {
  const caller = ctx.http?.authInfo?.extra?.caller as McpCaller | undefined;
  // the route authenticates every request before it reaches a server
  if (caller === undefined) throw new ProtocolError(ProtocolErrorCode.InternalError, "The request carries no caller.");
  return caller;
}
