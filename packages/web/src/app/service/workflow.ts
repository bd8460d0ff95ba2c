/**
 * One staged edit as the workflow protocol has it (spec 4.6, 7): opened with a staging key, so
 * that a reload finds it again (`/workflow/active`); every request a step with `Workflow-Id` and
 * `Workflow-Index`; the index taken from `Workflow-Next-Index` of every answer, and a step the
 * server answered 409 (another tab, a lost answer) sent once more with the index it names.
 */
import type { Answer, Http, RequestOptions } from "./http.js";

export interface Workflow {
  readonly id: string;
  /** a request of the workflow */
  step(method: string, path: string, options?: RequestOptions): Promise<Answer>;
  /** `POST /workflow/commit`: 200, 422 or 400 */
  commit(): Promise<Answer>;
  /** the choice link of a question */
  answer(href: string): Promise<Answer>;
  /** disposes of it and everything staged */
  close(): Promise<void>;
}

function workflowOf(http: Http, id: string, first: number): Workflow {
  let index = first;
  const send = async (method: string, path: string, options: RequestOptions = {}): Promise<Answer> => {
    const attempt = () =>
      http.request(method, path, {
        ...options,
        headers: { ...options.headers, "Workflow-Id": id, "Workflow-Index": String(index) },
      });
    let answer = await attempt();
    const next = () => {
      const header = answer.headers.get("Workflow-Next-Index");
      if (header !== null) index = Number(header);
    };
    next();
    if (answer.status === 409) {
      answer = await attempt();
      next();
    }
    return answer;
  };
  return {
    id,
    step: send,
    commit: () => send("POST", "/workflow/commit"),
    answer: (href) => send("POST", href),
    async close() {
      await http.request("DELETE", `/workflow/${id}`);
    },
  };
}

/** opens a workflow tagged with `stagingKey` */
export async function openWorkflow(http: Http, stagingKey: string): Promise<Workflow> {
  const created = await http.request("POST", `/workflow?stagingKey=${encodeURIComponent(stagingKey)}`);
  if (created.status !== 200) throw new Error(created.body?.error?.message ?? `HTTP ${created.status}`);
  return workflowOf(http, created.body.workflowId, created.body.nextIndex ?? 1);
}

/** the caller's open workflow with that key, if there is one */
export async function findWorkflow(http: Http, stagingKey: string): Promise<Workflow | undefined> {
  const found = await http.request("GET", `/workflow/active?stagingKey=${encodeURIComponent(stagingKey)}`);
  return found.status === 200 ? workflowOf(http, found.body.workflowId, found.body.nextIndex) : undefined;
}
