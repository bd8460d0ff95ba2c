/**
 * One workflow driven step by step through the host, keeping `Workflow-Index` the way a client
 * does: every step checks that the answer carries `Workflow-Next-Index` and sends it next.
 */
import { expect } from "vitest";
import type { Caller } from "./host-app.js";

const json = async (res: Response) => (await res.json()) as any;

/** one workflow driven step by step, keeping the index the way a client does */
export async function workflow(who: Caller, stagingKey?: string) {
  const res = await who.request("POST", `/api/workflow${stagingKey ? `?stagingKey=${stagingKey}` : ""}`);
  expect(res.status).toBe(200);
  expect(res.headers.get("Workflow-Next-Index")).toBe("1");
  const body = await json(res);
  expect(body).toMatchObject({ message: expect.any(String), workflowId: expect.any(String), nextIndex: 1 });
  let index = 1;
  return {
    id: body.workflowId as string,
    get index() {
      return index;
    },
    /** a step at the next index (or `at`), with any more `headers` (If-Match, Accept) */
    async step(method: string, path: string, payload?: unknown, at = index, headers: Record<string, string> = {}) {
      const r = await who.request(method, path, payload, {
        ...headers,
        "Workflow-Id": body.workflowId,
        "Workflow-Index": String(at),
      });
      const next = r.headers.get("Workflow-Next-Index");
      expect(next, `${method} ${path} → ${r.status}`).not.toBeNull();
      index = Number(next);
      return r;
    },
  };
}
