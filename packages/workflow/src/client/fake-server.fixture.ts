/**
 * Test support: an in-memory stand-in for the service's workflow endpoints, as a `fetch`
 * function. It follows the documented protocol — create, resume, find active, close
 * (api-conventions "Workflows"), the index rules of spec 7, commit outcomes (spec 4.7), questions
 * and their answer links (spec 2.4, 3.2) — and scripts entity calls by path:
 *
 * | path           | answer                                                          |
 * |----------------|-----------------------------------------------------------------|
 * | `/api/Ok`      | 200, a change staged, the request body echoed                   |
 * | `/api/Ask`     | 200, a change staged with a question (commit 422 until answered) |
 * | `/api/Break`   | 200, staged data that fails save-time validation (commit 400)    |
 * | `/api/Fix`     | 200, the data fixed again                                       |
 * | `/api/Invalid` | 400 `ValidationError`                                           |
 * | `/api/Boom`    | 500                                                             |
 *
 * The bearer token is `<user>` or `<user>.<anything>`; workflows belong to their user (spec 5.5).
 */

interface FakeWorkflow {
  readonly id: string;
  readonly owner: string;
  readonly stagingKey: string | undefined;
  next: number;
  open: boolean;
  invalid: boolean;
  staged: number;
  saved: number;
  /** question id → the answer, undefined while pending */
  readonly questions: Map<string, string | undefined>;
}

/** one request the server received */
export interface Received {
  readonly method: string;
  readonly path: string;
  readonly token: string | undefined;
  /** `Workflow-Index` sent, and the index the server expected when it arrived */
  readonly index: number | undefined;
  readonly expected: number | undefined;
  status: number;
}

type Answer = { status: number; body?: unknown; advance?: boolean };

export class FakeServer {
  readonly workflows = new Map<string, FakeWorkflow>();
  readonly received: Received[] = [];
  /** another client's steps: the workflow advances just before each of the next n staged calls arrives */
  interference = 0;
  /** the next response never reaches the client (fetch rejects) although the server handled it */
  loseNextResponse = false;
  /** milliseconds each request takes */
  latency: () => number = () => 0;
  maxInFlight = 0;
  #inFlight = 0;
  #ids = 0;

  readonly fetch: typeof fetch = async (input, init) => {
    this.#inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.#inFlight);
    try {
      const latency = this.latency();
      if (latency > 0) await new Promise((resolve) => setTimeout(resolve, latency));
      const url = new URL(String(input));
      const response = this.#route(init?.method ?? "GET", url, new Headers(init?.headers));
      if (this.loseNextResponse) {
        this.loseNextResponse = false;
        throw new TypeError("fetch failed");
      }
      return response;
    } finally {
      this.#inFlight--;
    }
  };

  /** another client's successful steps on workflow `id` */
  advance(id: string, steps = 1): void {
    this.#get(id).next += steps;
  }

  workflow(id: string): Readonly<FakeWorkflow> {
    return this.#get(id);
  }

  #get(id: string): FakeWorkflow {
    const workflow = this.workflows.get(id);
    if (workflow === undefined) throw new Error(`no workflow ${id}`);
    return workflow;
  }

  #route(method: string, url: URL, headers: Headers): Response {
    const token = /^Bearer (.+)$/.exec(headers.get("Authorization") ?? "")?.[1];
    const user = token?.split(".")[0];
    const path = url.pathname;
    const entry: Received = { method, path, token, index: undefined, expected: undefined, status: 0 };
    this.received.push(entry);
    const response =
      user === undefined ? error(401, "Unauthorized") : this.#dispatch(method, url, headers, user, entry);
    entry.status = response.status;
    return response;
  }

  #dispatch(method: string, url: URL, headers: Headers, user: string, entry: Received): Response {
    const path = url.pathname;
    const mine = (w: FakeWorkflow | undefined) => (w?.open && w.owner === user ? w : undefined);
    const found = (w: FakeWorkflow | undefined) =>
      w === undefined ? error(404, "NotFound") : json(200, { workflowId: w.id, nextIndex: w.next }, w.next);
    if (headers.has("Workflow-Id"))
      return this.#step(method, path, headers, mine(this.workflows.get(headers.get("Workflow-Id") ?? "")), entry);
    if (method === "POST" && path === "/api/workflow") {
      const id = `wf-${++this.#ids}`;
      const stagingKey = url.searchParams.get("stagingKey") ?? undefined;
      const workflow = {
        id,
        owner: user,
        stagingKey,
        next: 1,
        open: true,
        invalid: false,
        staged: 0,
        saved: 0,
        questions: new Map(),
      };
      this.workflows.set(id, workflow);
      return json(200, { message: "Workflow created.", workflowId: id, nextIndex: 1 }, 1);
    }
    if (method === "GET" && path === "/api/workflow/active") {
      const key = url.searchParams.get("stagingKey");
      return found([...this.workflows.values()].find((w) => mine(w) && w.stagingKey === key));
    }
    const id = /^\/api\/workflow\/([^/]+)$/.exec(path)?.[1];
    const workflow = mine(this.workflows.get(decodeURIComponent(id ?? "")));
    if (method === "GET" && id !== undefined) return found(workflow);
    if (method === "DELETE" && id !== undefined) {
      if (workflow === undefined) return error(404, "NotFound");
      workflow.open = false;
      return new Response(null, { status: 204 });
    }
    return error(404, "NotFound");
  }

  /** spec 7: index required and enforced; advances on 2xx and on a 422 commit, never otherwise */
  #step(method: string, path: string, headers: Headers, workflow: FakeWorkflow | undefined, entry: Received): Response {
    if (workflow === undefined) return error(404, "NotFound");
    if (this.interference > 0) {
      this.interference--;
      workflow.next++;
    }
    const raw = headers.get("Workflow-Index");
    const index = raw !== null && /^\d+$/.test(raw) ? Number(raw) : undefined;
    Object.assign(entry, { index, expected: workflow.next });
    if (index === undefined) return error(400, "WorkflowIndexRequired", workflow.next);
    if (index !== workflow.next) return error(409, "WorkflowIndexConflict", workflow.next);
    const answer = this.#run(method, path, workflow);
    if (answer.advance ?? (answer.status >= 200 && answer.status < 300)) workflow.next++;
    return json(answer.status, answer.body, workflow.next);
  }

  #run(method: string, path: string, w: FakeWorkflow): Answer {
    const pending = [...w.questions].filter(([, answer]) => answer === undefined).map(([id]) => question(id));
    if (method === "POST" && path === "/api/workflow/commit") {
      if (pending.length > 0) return { status: 422, body: prompts(pending, "QuestionPending"), advance: true };
      if (w.invalid)
        return { status: 400, body: { ...failure("ValidationError", "Total"), ...prompts([message("error")]) } };
      w.saved += w.staged;
      w.staged = 0;
      return { status: 200, body: prompts([message("info")]) };
    }
    const answer = /^\/api\/userprompts\/([^/]+)\/answer\/([^/]+)$/.exec(path);
    if (method === "POST" && answer !== null) {
      const [, id = "", key = ""] = answer;
      if (!w.questions.has(id)) return { status: 404, body: failure("NotFound") };
      if (w.questions.get(id) !== undefined || !["accept", "reject"].includes(key))
        return { status: 400, body: failure("ValidationError") };
      w.questions.set(id, key);
      return { status: 200, body: {} };
    }
    switch (path) {
      case "/api/Ok":
        w.staged++;
        return { status: 200, body: { ok: true } };
      case "/api/Ask": {
        const id = `q-${w.id}-${w.questions.size + 1}`;
        w.questions.set(id, undefined);
        w.staged++;
        return { status: 200, body: { "@workflow.userprompts": { "g-1.Total": [question(id)] } } };
      }
      case "/api/Break":
      case "/api/Fix":
        w.invalid = path === "/api/Break";
        return { status: 200, body: {} };
      case "/api/Invalid":
        return { status: 400, body: failure("ValidationError", "Total") };
      case "/api/Boom":
        return { status: 500, body: failure("InternalError") };
      default:
        return { status: 404, body: failure("NotFound") };
    }
  }
}

const question = (id: string) => ({
  id,
  text: "Continue?",
  severity: "warning",
  choices: ["accept", "reject"].map((key) => ({
    key,
    label: key,
    href: `/api/userprompts/${id}/answer/${key}`,
    method: "POST",
  })),
  default: "reject",
});

const message = (severity: string) => ({ id: `m-${severity}`, text: `A ${severity} message.`, severity });

const prompts = (list: unknown[], code?: string) => ({
  ...(code === undefined ? {} : failure(code)),
  "@workflow.userprompts": { global: list },
});

const failure = (code: string, target?: string) => ({
  error: {
    code,
    message: `${code}.`,
    ...(target === undefined ? {} : { target, details: [{ code, message: "Bad.", target }] }),
  },
});

const error = (status: number, code: string, next?: number) => json(status, failure(code), next);

function json(status: number, body: unknown, next?: number): Response {
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (next !== undefined) headers["Workflow-Next-Index"] = String(next);
  return new Response(JSON.stringify(body), { status, headers });
}
