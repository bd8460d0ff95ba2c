/**
 * One validation for every write, through the service (issue 35): a Modify method and one that
 * saves on completion answer what a PATCH of the same values answers (400 ValidationError, the same
 * details), and store nothing; a workflow's steps and commit, in the host's tests, too. The model
 * and its cases are test/constraint-model.ts, which the core tests run per write path too.
 */

import { constraintCases, constraintModel, patchBody, validOrder } from "@bizdata/test-kit/constraint-model";
import { uniqueTenant } from "@bizdata/test-kit/database";
import { type ServiceTenant, serviceHarness } from "@bizdata/test-kit/odata-harness";
import { dataOf } from "@bizdata/test-kit/payload-data";
import { beforeAll, describe, expect, it } from "vitest";

const { model } = constraintModel("Sc");
let api: ServiceTenant;

beforeAll(async () => {
  api = (await serviceHarness({ model })).tenant(uniqueTenant("constraints"));
});

const json = async (res: Response) => (await res.json()) as any;
let numbers = 0;

/** a new valid order: its Guid, its line's, and how a GET shows it */
async function order() {
  const res = await api.call("POST", "/api/ScOrder", { body: validOrder(`H-${++numbers}`) });
  expect(res.status).toBe(201);
  const { Guid } = await json(res);
  const shown = await read(Guid);
  return { guid: Guid as string, line: shown.Lines[0].Guid as string, shown };
}

/** the order's every property and its lines' */
const shape = "$select=Number,Quantity,Note,Price,Status,Customer,Sealed,Logic&$expand=Lines($select=Code,Quantity)";
const read = async (guid: string) => dataOf(await json(await api.call("GET", `/api/ScOrder(${guid})?${shape}`)));

describe("a method's write", () => {
  it("that sets Quantity to −90 (integer min 0) on completion is a 400 OutOfRange, and the order keeps its value", async () => {
    const { guid } = await order();
    const res = await api.call("POST", `/api/ScOrder(${guid})/Seal`, { body: { case: "min" } });
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual({
      error: {
        code: "ValidationError",
        message: "Quantity must be at least 0.",
        details: [{ code: "OutOfRange", message: "Quantity must be at least 0.", target: "Quantity" }],
      },
    });
    expect(await read(guid)).toMatchObject({ Quantity: 5, Sealed: null });
  });

  it.each(constraintCases)("breaking $name answers what a PATCH answers, and stores nothing", async (c) => {
    const { guid, line, shown } = await order();
    const patch = await api.call("PATCH", `/api/ScOrder(${guid})`, { body: patchBody(c, line) });
    expect(patch.status).toBe(400);
    const refused = await json(patch);
    expect(refused.error.details).toEqual([expect.objectContaining({ code: c.code, target: c.target })]);
    for (const method of ["Apply", "Seal"]) {
      const res = await api.call("POST", `/api/ScOrder(${guid})/${method}`, { body: { case: c.name } });
      expect(res.status, method).toBe(400);
      expect(await json(res), method).toEqual(refused);
    }
    expect(await read(guid)).toEqual(shown);
  });
});
