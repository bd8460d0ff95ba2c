/**
 * MCP sessions of the 2025 revisions (Streamable HTTP, `Mcp-Session-Id`): a session keeps its
 * server, its transport and its workflow handles in memory, because a question put to the person
 * (elicitation) travels on the session's streams, and its log level is the session's. A session
 * belongs to the user and tenant that started it: to anyone else it does not exist (404, as for
 * an unknown id). Sessions idle longer than `idleMs` are closed, and each user keeps at most
 * `maxPerUser` (the least recently used goes first), so a host's memory stays bounded; a session
 * whose standing stream (GET) is open is not idle, for its client is listening. Workflows
 * live in the database: a client whose session ended (or that reached another host) starts a new
 * session and goes on with the same workflow by its id. Clients of 2026-07-28 need no session.
 */
import { randomUUID } from "node:crypto";
import { type AuthInfo, type Server, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import type { Principal } from "../auth/principal.js";
import { onStreamEnd } from "../lifecycle/stream-end.js";
import { authInfoOf, type McpCaller } from "./mcp-caller.js";
import type { SessionWorkflows } from "./session-workflows.js";

export interface SessionParts {
  readonly server: Server;
  readonly workflows: SessionWorkflows;
}

export interface SessionOptions {
  /** a new session's server and workflows */
  readonly open: () => SessionParts;
  readonly idleMs: number;
  readonly maxPerUser: number;
  /** the largest request body the transport reads */
  readonly maxBodyBytes: number;
}

interface Session extends SessionParts {
  readonly id: string;
  readonly owner: string;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  lastSeen: number;
  /** the caller of the request served last: the one that ends the session closes its workflows */
  caller: McpCaller;
  /** whether its standing stream (GET) is open */
  listening: boolean;
}

const ownerOf = (p: Principal) => JSON.stringify([p.tenantId, p.username]);

/** the transport's own answer for an unknown session (the client starts a new one) */
const sessionNotFound = () =>
  Response.json({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }, { status: 404 });

export class McpSessions {
  readonly #sessions = new Map<string, Session>();

  constructor(private readonly options: SessionOptions) {}

  /** serves `request` of `caller`, who sent `token` */
  async handle(request: Request, caller: McpCaller, token: string): Promise<Response> {
    this.#closeIdle(Date.now());
    const authInfo = authInfoOf(caller, token);
    const id = request.headers.get("mcp-session-id");
    if (id === null) return this.#open(request, caller, authInfo);
    const session = this.#sessions.get(id);
    if (session === undefined || session.owner !== ownerOf(caller.principal)) return sessionNotFound();
    session.lastSeen = Date.now();
    session.caller = caller;
    const response = await session.transport.handleRequest(request, { authInfo });
    return request.method === "GET" && response.ok && response.body !== null ? listened(session, response) : response;
  }

  /** forgets every session (the host shuts down): their standing streams end */
  async close(): Promise<void> {
    await Promise.all([...this.#sessions.keys()].map((id) => this.#close(id)));
  }

  async #open(request: Request, caller: McpCaller, authInfo: AuthInfo): Promise<Response> {
    const parts = this.options.open();
    const owner = ownerOf(caller.principal);
    let opened = false;
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: this.options.maxBodyBytes,
      onsessioninitialized: (id) => {
        opened = true;
        this.#sessions.set(id, { ...parts, id, owner, transport, lastSeen: Date.now(), caller, listening: false });
        this.#limit(owner);
      },
      // the client ended the session (DELETE): like a person's client disposing its connection
      onsessionclosed: async (id) => {
        const session = this.#sessions.get(id);
        this.#sessions.delete(id);
        if (session !== undefined) await session.workflows.dispose(session.caller.api);
      },
    });
    await parts.server.connect(transport);
    const response = await transport.handleRequest(request, { authInfo });
    // anything but an initialize without a session id is refused by the transport: keep nothing
    if (!opened) await parts.server.close();
    return response;
  }

  #closeIdle(now: number): void {
    for (const session of this.#sessions.values()) {
      if (!session.listening && now - session.lastSeen > this.options.idleMs) void this.#close(session.id);
    }
  }

  #limit(owner: string): void {
    const own = [...this.#sessions.values()].filter((s) => s.owner === owner).sort((a, b) => a.lastSeen - b.lastSeen);
    for (const session of own.slice(0, Math.max(0, own.length - this.options.maxPerUser))) {
      void this.#close(session.id);
    }
  }

  /** forgets a session; its workflows stay open (they expire with WORKFLOW_TTL, or go on by id) */
  async #close(id: string): Promise<void> {
    const session = this.#sessions.get(id);
    if (session === undefined) return;
    this.#sessions.delete(id);
    await session.server.close();
  }
}

/** the session's standing stream, marking it listening until the stream ends (and seen when it does) */
function listened(session: Session, response: Response): Response {
  session.listening = true;
  const body = onStreamEnd(response.body!, () => {
    session.listening = false;
    session.lastSeen = Date.now();
  });
  return new Response(body, response);
}
