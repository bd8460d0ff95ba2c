/**
 * Model-based test of the client's index protocol (spec 7) against the fake server: random
 * sequences of staged calls that succeed, fail or conflict, commits with and without pending
 * questions (spec 4.7), answers (spec 3.2), other clients' steps between and during calls, and
 * lost responses. After every call the model predicts the outcome, the server's index, the
 * client's index and how many requests were sent, with how many stale.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { WorkflowError } from "./errors.js";
import { FakeServer } from "./fake-server.fixture.js";
import { questions } from "./prompts.js";
import type { WorkflowResponse } from "./transport.js";
import type { Workflow } from "./workflow.js";
import { WorkflowClient } from "./workflow-client.js";

const PATHS = ["/api/Ok", "/api/Ask", "/api/Break", "/api/Fix", "/api/Invalid", "/api/Boom"] as const;
const FAILS: Partial<Record<(typeof PATHS)[number], number>> = { "/api/Invalid": 400, "/api/Boom": 500 };

type Op =
  /** `interference`: other clients' steps that land just before each of the call's first sends */
  | { kind: "call"; path: (typeof PATHS)[number]; interference: number }
  | { kind: "commit"; interference: number }
  | { kind: "answer"; pick: number; key: "accept" | "reject"; interference: number }
  | { kind: "other"; steps: number }
  | { kind: "lost" };

const interference = fc.oneof(
  { arbitrary: fc.constant(0), weight: 4 },
  { arbitrary: fc.integer({ min: 1, max: 5 }), weight: 1 },
);
const op: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant("call"), path: fc.constantFrom(...PATHS), interference }), weight: 6 },
  { arbitrary: fc.record({ kind: fc.constant("commit"), interference }), weight: 2 },
  {
    arbitrary: fc.record({
      kind: fc.constant("answer"),
      pick: fc.nat(),
      key: fc.constantFrom("accept", "reject"),
      interference,
    }),
    weight: 2,
  },
  { arbitrary: fc.record({ kind: fc.constant("other"), steps: fc.integer({ min: 1, max: 3 }) }), weight: 1 },
  { arbitrary: fc.constant({ kind: "lost" }), weight: 1 },
) as fc.Arbitrary<Op>;

interface Model {
  next: number;
  client: number;
  pending: string[];
  answered: string[];
  invalid: boolean;
}

/** what a step's own handling does when it gets through: its status and whether the index advances */
function effect(o: Op, m: Model): { status: number; answer?: string } {
  if (o.kind === "commit") return { status: m.pending.length > 0 ? 422 : m.invalid ? 400 : 200 };
  if (o.kind === "answer") {
    const id = m.pending[o.pick % m.pending.length] ?? m.answered[o.pick % m.answered.length] ?? "q-unknown";
    return { status: m.pending.includes(id) ? 200 : m.answered.includes(id) ? 400 : 404, answer: id };
  }
  return { status: o.kind === "call" ? (FAILS[o.path] ?? 200) : 200 };
}

async function run(workflow: Workflow, o: Op, target: string | undefined): Promise<WorkflowResponse> {
  if (o.kind === "commit") return (await workflow.commit()).response;
  if (o.kind === "answer") return workflow.answer({ promptId: target ?? "", key: o.key });
  return workflow.post(o.kind === "call" ? o.path : "/api/Ok");
}

async function check(maxResyncs: number, ops: Op[]): Promise<void> {
  const server = new FakeServer();
  const client = new WorkflowClient({
    baseUrl: "http://service.test",
    token: "alice",
    fetch: server.fetch,
    maxResyncs,
  });
  const workflow = await client.create();
  const m: Model = { next: 1, client: 1, pending: [], answered: [], invalid: false };
  // a last plain call: after it the client is in step again, even when it was behind
  for (const o of [...ops, { kind: "call", path: "/api/Ok", interference: 0 } as const]) {
    const before = server.received.length;
    if (o.kind === "other") {
      server.advance(workflow.id, o.steps);
      m.next += o.steps;
    } else if (o.kind === "lost") {
      server.loseNextResponse = true;
      await expect(workflow.post("/api/Ok")).rejects.toThrow(TypeError);
      if (m.client === m.next) m.next++;
      expect(server.received.length - before).toBe(1);
    } else {
      const behind = m.client === m.next ? 0 : 1;
      const conflicts = Math.max(o.interference, behind);
      const sends = Math.min(conflicts, maxResyncs) + 1;
      const { status, answer } = effect(o, m);
      server.interference = o.interference;
      const result = await run(workflow, o, answer).then(
        (response) => ({ status: response.status, response }),
        (error: unknown) => ({ status: error instanceof WorkflowError ? error.status : -1, response: undefined }),
      );
      server.interference = 0;
      m.next += Math.min(o.interference, sends);
      const sent = server.received.slice(before);
      expect(sent.length).toBe(sends);
      expect(sent.filter((r) => r.index !== r.expected).length).toBe(Math.min(conflicts, maxResyncs + 1));
      if (conflicts > maxResyncs) {
        expect(result.status).toBe(409);
      } else {
        expect(result.status).toBe(status);
        if (status === 200 || status === 422) m.next++;
        applyEffect(o, m, status, answer, result.response);
      }
      m.client = m.next;
    }
    expect(server.workflow(workflow.id).next).toBe(m.next);
    expect(workflow.nextIndex).toBe(m.client);
  }
  expect(workflow.nextIndex).toBe(server.workflow(workflow.id).next);
}

function applyEffect(
  o: Op,
  m: Model,
  status: number,
  answer: string | undefined,
  response: WorkflowResponse | undefined,
) {
  if (o.kind === "commit" && status === 422) {
    expect(response && questions(response).map((q) => q.id)).toEqual(m.pending);
  } else if (o.kind === "answer" && status === 200 && answer !== undefined) {
    m.pending = m.pending.filter((id) => id !== answer);
    m.answered.push(answer);
  } else if (o.kind === "call" && o.path === "/api/Ask") {
    const asked = response === undefined ? [] : questions(response);
    expect(asked).toHaveLength(1);
    m.pending.push(asked[0]?.id ?? "");
  } else if (o.kind === "call" && (o.path === "/api/Break" || o.path === "/api/Fix")) {
    m.invalid = o.path === "/api/Break";
  }
}

describe("Workflow index protocol, model-based", () => {
  it("keeps the client's index equal to the server's and bounds the resends", async () => {
    await fc.assert(fc.asyncProperty(fc.integer({ min: 0, max: 3 }), fc.array(op, { maxLength: 40 }), check), {
      numRuns: 300,
    });
  });
});
