/**
 * The request state of a tool call that waits for answers (MCP 2026-07-28, multi round-trip): a
 * Resumption sealed by the SDK's HMAC codec under a secret every host reads from the database (the
 * retry may reach any of them), bound to the caller (tenant and user) and to `tools/call`, valid
 * for ten minutes; the call it belongs to (tool and arguments) is in the payload, checked before
 * it is used. Signed, not encrypted: it holds only what the caller may read — the tool's answer so
 * far and the questions. That a question is answered once is the workflow's to enforce, not the
 * state's.
 */
import { createHash } from "node:crypto";
import type { Database } from "@bizdata/core";
import { createRequestStateCodec, type RequestStateCodec, type ServerContext } from "@modelcontextprotocol/server";
import { serverSecret } from "../auth/server-secret.js";
import { callerOf } from "./mcp-caller.js";
import type { Resumption } from "./tool-questions.js";

const TTL_SECONDS = 10 * 60;

export interface RequestStates {
  mint(state: Resumption, ctx: ServerContext): Promise<string>;
  /** the resumption a request state seals; throws (the SDK answers -32602) when it is not one of ours for this caller */
  verify(state: string, ctx: ServerContext): Promise<Resumption>;
}

const bind = (ctx: ServerContext) => {
  const { tenantId, username } = callerOf(ctx).principal;
  return JSON.stringify([ctx.mcpReq.method, tenantId, username]);
};

export function requestStates(db: Database): RequestStates {
  // made on first use (the secret is in the database); made again after a failure
  let codec: Promise<RequestStateCodec<Resumption>> | undefined;
  const ready = () => {
    codec ??= serverSecret(db, "mcpRequestState")
      .then((key) => createRequestStateCodec<Resumption>({ key, ttlSeconds: TTL_SECONDS, bind }))
      .catch((err: unknown) => {
        codec = undefined;
        throw err;
      });
    return codec;
  };
  return {
    mint: async (state, ctx) => (await ready()).mint(state, ctx),
    verify: async (state, ctx) => (await ready()).verify(state, ctx),
  };
}

/** which call a state belongs to: the tool and its arguments, as the retry repeats them */
export const callDigest = (tool: string, args: unknown): string =>
  createHash("sha256")
    .update(JSON.stringify([tool, args]))
    .digest("base64url");
