import { describe, expect, it } from "vitest";
import { announcedIndex, indexAfter, isResyncable, stepHeaders } from "./index-protocol.js";
import type { WorkflowResponse } from "./transport.js";

const response = (status: number, next?: string): WorkflowResponse => ({
  status,
  headers: new Headers(next === undefined ? {} : { "Workflow-Next-Index": next }),
  body: undefined,
  prompts: {},
});

describe("index protocol, client side (spec 7)", () => {
  it("sets Workflow-Id and Workflow-Index over the caller's headers", () => {
    const headers = stepHeaders({ "workflow-index": "99", Prefer: "return=minimal" }, "wf-1", 4);
    expect([...headers]).toEqual([
      ["prefer", "return=minimal"],
      ["workflow-id", "wf-1"],
      ["workflow-index", "4"],
    ]);
  });

  it("reads Workflow-Next-Index only when it is a whole number", () => {
    expect(announcedIndex(new Headers({ "Workflow-Next-Index": "7" }))).toBe(7);
    for (const bad of ["", "-1", "1.5", "x"])
      expect(announcedIndex(new Headers({ "Workflow-Next-Index": bad }))).toBe(undefined);
  });

  it("takes the server's announcement whatever the status", () => {
    for (const status of [200, 400, 409, 422, 500]) expect(indexAfter(response(status, "9"), 3, false)).toBe(9);
  });

  it("without an announcement: one more after 2xx and a 422 commit, the same after anything else", () => {
    expect(indexAfter(response(200), 3, false)).toBe(4);
    expect(indexAfter(response(204), 3, false)).toBe(4);
    expect(indexAfter(response(422), 3, true)).toBe(4);
    expect(indexAfter(response(422), 3, false)).toBe(3);
    for (const status of [400, 404, 409, 500, 502]) expect(indexAfter(response(status), 3, true)).toBe(3);
  });

  it("resyncs only from a 409 that announces the next index", () => {
    expect(isResyncable(response(409, "5"))).toBe(true);
    expect(isResyncable(response(409))).toBe(false);
    expect(isResyncable(response(400, "5"))).toBe(false);
  });
});
