import { defineModel } from "@bizdata/core";
import { describe, expect, it } from "vitest";
import { configOf } from "./load-config.js";

const model = defineModel([]);
const seed = async () => {};

describe("configOf", () => {
  it("takes a model as default export, a config as default export, or named exports", () => {
    expect(configOf({ default: model }, "m")).toEqual({ model });
    const config = { model, seed, demo: { signIns: [] } };
    expect(configOf({ default: config }, "m")).toBe(config);
    expect(configOf({ model, seed }, "m")).toMatchObject({ model, seed });
  });

  it.each([
    [{ default: { name: "not a model" } }, "m exports no model"],
    [{ model: { entities: [] } }, "m exports no model"],
    [{ model, seed: "yes" }, "m: seed must be a function"],
    [{ model, seed, demo: { signIns: "demo/demo" } }, "m: demo must be { signIns: [{ tenant, username, password }] }."],
    [{ model, demo: { signIns: [] } }, "m: demo needs a seed function that creates it."],
  ])("refuses %j", (exports, message) => {
    expect(() => configOf(exports, "m")).toThrow(message);
  });
});
