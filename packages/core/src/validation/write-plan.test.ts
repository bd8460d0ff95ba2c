import { describe, expect, it } from "vitest";
import { entity } from "../model/entity.js";
import { decimal, enumeration, text } from "../model/fields.js";
import { defineModel } from "../model/model.js";
import { entityPlan } from "./write-plan.js";

const Product = entity("Product", {
  naturalKey: "SKU",
  fields: { SKU: text({ required: true }), Cost: decimal({ default: 2.5 }) },
});

describe("entityPlan", () => {
  it("is built once per definition and model", () => {
    const model = defineModel([Product]);
    expect(entityPlan(model, Product)).toBe(entityPlan(model, Product));
    expect(entityPlan(defineModel([Product]), Product)).not.toBe(entityPlan(model, Product));
  });

  it("normalizes defaults once, through the field's schema", () => {
    const plan = entityPlan(defineModel([Product]), Product).fields.get("Cost");
    expect(plan?.kind === "value" && plan.default).toEqual({ value: "2.5" });
  });

  it("refuses a definition whose default its own field would reject", () => {
    const Bad = entity("Bad", {
      naturalKey: "Guid",
      fields: { Kind: enumeration(["A", "B"], { default: "C" as "A" }), Code: text({ maxLength: 2, default: "ABC" }) },
    });
    expect(() => entityPlan(defineModel([Bad]), Bad)).toThrow(
      /^Bad\.Kind: the default "C" is invalid; it must be one of "A", "B"/,
    );
  });
});
