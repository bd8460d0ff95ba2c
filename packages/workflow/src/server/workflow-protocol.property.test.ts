/**
 * The index protocol (spec 7) against a model of it: random sequences of steps with the right,
 * a stale or a future index, steps that fail validation, reads, commits and closes. After every
 * request the server's status and `Workflow-Next-Index` must be what the model says, and at the
 * end the stored products must be exactly the ones the model committed.
 */

import { type Client, workflowHarness } from "@bizdata/test-kit/workflow-harness";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";

type Op =
  | { readonly kind: "create"; readonly offset: number }
  | { readonly kind: "invalid"; readonly offset: number }
  | { readonly kind: "read"; readonly offset: number }
  | { readonly kind: "commit"; readonly offset: number };

// mostly the right index; now and then a stale or a future one
const offset = fc.oneof(
  { weight: 6, arbitrary: fc.constant(0) },
  { weight: 1, arbitrary: fc.integer({ min: -3, max: -1 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 3 }) },
);
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant("create" as const), offset }),
  fc.record({ kind: fc.constant("invalid" as const), offset }),
  fc.record({ kind: fc.constant("read" as const), offset }),
  fc.record({ kind: fc.constant("commit" as const), offset }),
);

let admin: Client;
beforeAll(async () => {
  const harness = await workflowHarness();
  admin = harness.as(await harness.tenant("wf-model"), "admin");
});

describe("workflow index protocol, model-based", () => {
  it("agrees with the model on every status, next index and the committed data", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), async (ops) => {
        run++;
        const created = (await admin.create()).body as { workflowId: string };
        const model = { next: 1, staged: [] as string[], committed: [] as string[] };
        for (const [i, o] of ops.entries()) {
          const index = Math.max(0, model.next + o.offset);
          const at = { workflowId: created.workflowId, index: String(index) };
          const sku = `M${run}-${i}`;
          const res =
            o.kind === "create"
              ? await admin.step(at, "POST", "/api/Product", { SKU: sku })
              : o.kind === "invalid"
                ? await admin.step(at, "POST", "/api/Product", { SKU: 42 })
                : o.kind === "read"
                  ? await admin.step(at, "GET", `/api/Product/$count?$filter=startswith(SKU,'M${run}-')`)
                  : await admin.commit(at);
          let expected: number;
          if (index !== model.next) expected = 409;
          else if (o.kind === "invalid") expected = 400;
          else {
            expected = o.kind === "create" ? 201 : 200;
            if (o.kind === "create") model.staged.push(sku);
            if (o.kind === "read") expect(Number(res.text)).toBe(model.committed.length + model.staged.length);
            if (o.kind === "commit") {
              model.committed.push(...model.staged);
              model.staged = [];
            }
            model.next++;
          }
          expect(res.status, `${o.kind} at ${index} (next ${model.next})`).toBe(expected);
          expect(res.headers["Workflow-Next-Index"]).toBe(String(model.next));
        }
        const stored = await admin.request(
          "GET",
          `/api/Product?$filter=startswith(SKU,'M${run}-')&$select=SKU&$orderby=SKU`,
        );
        const skus = (stored.body as { value: { SKU: string }[] }).value.map((p) => p.SKU);
        expect(skus).toEqual([...model.committed].sort());
        await admin.close(created.workflowId);
      }),
      { numRuns: 25 },
    );
    // a long model run: its own bound, not the suite default (a busy CI machine needs more)
  }, 120_000);
});
