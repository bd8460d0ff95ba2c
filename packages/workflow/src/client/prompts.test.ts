import { describe, expect, it } from "vitest";
import { answerHref, messages, questions, readPrompts } from "./prompts.js";

const choice = (id: string, key: string) => ({ key, label: key, href: answerHref("/api", id, key), method: "POST" });
const envelope = {
  global: [{ id: "m1", text: "Saved as draft.", severity: "info" }],
  "g-1.Total": [
    {
      id: "q1",
      text: "Over the credit limit. Continue?",
      severity: "warning",
      choices: [choice("q1", "accept")],
      default: "accept",
    },
    { id: "m2", text: "Rounded.", severity: "info", choices: [] },
  ],
};

describe("user prompts (spec 2.4)", () => {
  it("reads `@workflow.userprompts`, and {} when the body has none", () => {
    expect(readPrompts({ Guid: "g-1", "@workflow.userprompts": envelope })).toEqual(envelope);
    expect(readPrompts({ Guid: "g-1" })).toEqual({});
    expect(readPrompts({ "@userprompts": envelope })).toEqual({});
    expect(readPrompts("text")).toEqual({});
    expect(readPrompts(undefined)).toEqual({});
  });

  it("keeps only prompt-shaped entries and groups that are arrays", () => {
    const body = { "@workflow.userprompts": { global: [null, 3, { id: "m1" }, { id: "m2", text: "ok" }], other: "x" } };
    expect(readPrompts(body)).toEqual({ global: [{ id: "m2", text: "ok" }] });
  });

  it("keeps a group named __proto__ as a plain group", () => {
    const read = readPrompts(JSON.parse('{"@workflow.userprompts":{"__proto__":[{"id":"m","text":"t"}]}}'));
    expect(Object.getPrototypeOf(read)).toBe(Object.prototype);
    expect(Object.keys(read)).toEqual(["__proto__"]);
  });

  it("splits questions (prompts with choices) from messages, each with its group", () => {
    const source = { prompts: readPrompts({ "@workflow.userprompts": envelope }) };
    expect(questions(source).map((q) => [q.group, q.id, q.choices[0]?.href])).toEqual([
      ["g-1.Total", "q1", "/api/userprompts/q1/answer/accept"],
    ]);
    expect(messages(source).map((m) => [m.group, m.id])).toEqual([
      ["global", "m1"],
      ["g-1.Total", "m2"],
    ]);
  });

  it("builds answer links in the documented form, escaping their parts", () => {
    expect(answerHref("/api", "q 1", "a/b")).toBe("/api/userprompts/q%201/answer/a%2Fb");
    expect(answerHref("/odata/v1", "q", "accept")).toBe("/odata/v1/userprompts/q/answer/accept");
  });
});
