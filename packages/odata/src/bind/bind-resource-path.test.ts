/**
 * Binding resource paths that name an owned item by its key under its owner (OData containment,
 * `Order(…)/Lines(…)`): the item binds as at its own address, `Line(…)`, whatever follows it,
 * with the owners it must belong to, outermost first. Malformed keys and what cannot follow a
 * single record are refused here, each named; whether the owner holds the item is the read's
 * business (service/owned-items.test.ts).
 */
import { ServiceError } from "@bizdata/core";
import { containmentModel } from "@bizdata/test-kit/containment-model";
import { describe, expect, it } from "vitest";
import { parseResourcePath } from "../syntax/parse-resource-path.js";
import { type BoundPath, bindResourcePath } from "./bind-resource-path.js";

const model = containmentModel("Br", { namespace: "acme" });
const Line = model.entity("BrLine");

const K1 = "6f1d2b3c-0000-4000-8000-000000000001";
const K2 = "6f1d2b3c-0000-4000-8000-000000000002";
const K3 = "6f1d2b3c-0000-4000-8000-000000000003";

const bind = (path: string): BoundPath => bindResourcePath(model, parseResourcePath(path));

/** what a path binds to, names for entities and columns, for comparison */
const shapeOf = (path: BoundPath) =>
  JSON.parse(JSON.stringify(path, (_, v) => (v?.kind === "entity" && v.fields ? v.name : v)));

const lineOf = (order: string) => ({ owner: { root: "BrOrder", key: order, via: [] }, name: "Lines", item: "BrLine" });

describe("an owned item by key under its owner", () => {
  it("binds as the item at its own address, held by its owner", () => {
    for (const key of [K2, K2.toUpperCase(), `Guid=${K2}`, `Guid=${K2.toUpperCase()}`]) {
      const path = bind(`BrOrder(${K1})/Lines(${key})`);
      expect(path).toMatchObject({ kind: "entity", entity: Line, key: K2 });
      expect(shapeOf(path).owners).toMatchObject([{ ...lineOf(K1), key: K2 }]);
      expect(path.owners![0]!.inverse.path).toEqual(["Order"]);
    }
  });

  it("goes on from the item: references (back to its owner too), its own collections and their items, its methods", () => {
    const owners = [{ ...lineOf(K1), key: K2 }];
    expect(shapeOf(bind(`BrOrder(${K1})/Lines(${K2})/Product`))).toMatchObject({
      kind: "related",
      entity: "BrProduct",
      source: { root: "BrLine", key: K2, via: [{ target: "BrProduct" }] },
      owners,
    });
    expect(shapeOf(bind(`BrOrder(${K1})/Lines(${K2})/Order`))).toMatchObject({
      kind: "related",
      entity: "BrOrder",
      source: { root: "BrLine", key: K2 },
      owners,
    });
    expect(shapeOf(bind(`BrOrder(${K1})/Lines(${K2})/Notes/$count`))).toMatchObject({
      kind: "contained",
      entity: "BrNote",
      source: { root: "BrLine", key: K2, via: [] },
      count: true,
      owners,
    });
    expect(shapeOf(bind(`BrOrder(${K1})/Lines(${K2})/Notes(${K3})`))).toMatchObject({
      kind: "entity",
      entity: "BrNote",
      key: K3,
      owners: [...owners, { owner: { root: "BrLine", key: K2, via: [] }, name: "Notes", item: "BrNote", key: K3 }],
    });
    for (const call of ["Describe()", "acme.Describe()"]) {
      expect(bind(`BrOrder(${K1})/Lines(${K2})/${call}`)).toMatchObject({
        kind: "method",
        entity: "BrLine",
        key: K2,
        method: "Describe",
        owners: [{ key: K2 }],
      });
    }
  });

  it("is held by an owner reached through references", () => {
    const path = shapeOf(bind(`BrCustomer(${K1})/LastOrder/Lines(${K2})`));
    expect(path).toMatchObject({
      kind: "entity",
      entity: "BrLine",
      key: K2,
      owners: [{ owner: { root: "BrCustomer", key: K1, via: [{ target: "BrOrder" }] }, name: "Lines", key: K2 }],
    });
  });

  it("leaves paths without an item's key as they were: no owners", () => {
    for (const path of [`BrOrder(${K1})`, `BrOrder(${K1})/Lines`, `BrOrder(${K1})/Customer`, `BrLine(${K2})/Notes`]) {
      expect(bind(path), path).not.toHaveProperty("owners");
    }
  });

  it.each([
    [
      `BrOrder(${K1})/Lines(${K2})/$count`,
      400,
      "InvalidPath",
      "'$count' applies to a collection, not to a single record.",
    ],
    [`BrOrder(${K1})/$count`, 400, "InvalidPath", "'$count' applies to a collection, not to a single record."],
    [`BrOrder(${K1})/Lines(${K2})/Notes(${K3})/$count`, 400, "InvalidPath", "'$count' applies to a collection"],
    [`BrOrder(${K1})/Lines('L-1')`, 400, "InvalidKey", `The key "L-1" is not a Guid.`],
    [`BrOrder(${K1})/Lines(Guid=1)`, 400, "InvalidKey", `The key "1" is not a Guid.`],
    [
      `BrOrder(${K1})/Lines()`,
      400,
      "InvalidKey",
      "BrLine is addressed by one key, its Guid: Lines(<guid>) or Lines(Guid=<guid>).",
    ],
    [`BrOrder(${K1})/Lines(Guid=${K2},Number=1)`, 400, "InvalidKey", "BrLine is addressed by one key"],
    [
      `BrOrder(${K1})/Lines(Id=${K2})`,
      400,
      "InvalidKey",
      `"Id" is not the key of BrLine, which is addressed by its Guid: Lines(<guid>)`,
    ],
    [`BrOrder(${K1})/Lines(guid=${K2})`, 400, "InvalidKey", `did you mean "Guid"?`],
    [
      `BrOrder(${K1})/Lines/Notes`,
      400,
      "InvalidPath",
      "Only '$count' can follow the collection BrOrder.Lines in a path; an item of it is Lines(<guid>).",
    ],
    [`BrOrder(${K1})/Customer(${K2})`, 400, "InvalidPath", "BrOrder.Customer takes no key: it leads to one record."],
    [`BrOrder(${K1})/Lines(${K2})/Nope`, 404, "NotFound", `BrLine has no navigation property or method "Nope"`],
    [`BrOrder(${K1})/Lines(${K2})/notes`, 404, "NotFound", `did you mean "Notes"?`],
    [`BrOrder(${K1})/Lines(${K2})/Describe()/x`, 400, "InvalidPath", "Nothing can follow the method Describe"],
    [`BrOrder(${K1})/Lines(${K2})/Product(${K3})`, 400, "InvalidPath", "BrLine.Product takes no key"],
  ])("%s → %d %s", (path, status, code, message) => {
    let error: unknown;
    try {
      bind(path);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toMatchObject({ status, code });
    expect((error as Error).message).toContain(message);
  });
});
