import { describe, expect, it } from "vitest";
import { entity } from "../model/entity.js";
import { collection, complex, decimal, enumeration, reference, text } from "../model/fields.js";
import { defineModel } from "../model/model.js";
import { entityTable } from "./entity-tables.js";
import { persistedColumns, snakeCase } from "./naming.js";
import { tableDdl } from "./table-ddl.js";

const Uom = entity("TblUom", {
  naturalKey: { property: "Name", unique: false },
  fields: { Item: reference("TblItem"), Name: text() },
});
const Item = entity("TblItem", {
  naturalKey: "SKU",
  fields: {
    SKU: text({ required: true, maxLength: 64 }),
    SalesDescription: text(),
    Cost: decimal({ precision: 12, scale: 3, default: 0 }),
    Kind: enumeration(["A", "B"], { default: "A" }),
    Address: complex({ City: text({ maxLength: 80 }), Uom: reference("TblUom") }),
    Uoms: collection(Uom, { inverse: "Item" }),
  },
  indexes: ["Kind", ["Kind", "Cost"], "Address/City", "Title"],
});
const model = defineModel([Uom, Item]);

describe("tables derived from definitions", () => {
  it("names columns in snake_case, references as _guid, complex members with __", () => {
    expect(snakeCase("SalesDescription")).toBe("sales_description");
    expect(snakeCase("SKU")).toBe("sku");
    expect(snakeCase("HTTPServerName")).toBe("http_server_name");
    expect(persistedColumns(Item).map((c) => c.column)).toEqual([
      "guid",
      "title",
      "sku",
      "sales_description",
      "cost",
      "kind",
      "address__city",
      "address__uom_guid",
    ]);
  });

  it("leads the primary key and every index with tenant_id, with a unique natural key", () => {
    const ddl = tableDdl(entityTable(model, Item));
    expect(ddl.create[0]).toContain('"tenant_id" text COLLATE "C" NOT NULL');
    expect(ddl.create[0]).toContain('PRIMARY KEY ("tenant_id", "guid")');
    expect(ddl.create[0]).toContain('"sku" varchar(64)');
    expect(ddl.create[0]).toContain("\"cost\" numeric(12, 3) DEFAULT '0'");
    expect(ddl.create).toContain('CREATE UNIQUE INDEX IF NOT EXISTS "tbl_item_nk" ON "tbl_item" ("tenant_id", "sku")');
    expect(ddl.create).toContain(
      'CREATE INDEX IF NOT EXISTS "tbl_item_address__uom_guid_idx" ON "tbl_item" ("tenant_id", "address__uom_guid")',
    );
  });

  it("creates the declared indexes, single and composite, led by the tenant", () => {
    const ddl = tableDdl(entityTable(model, Item));
    for (const [name, columns] of [
      ["tbl_item_kind_ix", '"tenant_id", "kind"'],
      ["tbl_item_kind_cost_ix", '"tenant_id", "kind", "cost"'],
      ["tbl_item_address__city_ix", '"tenant_id", "address__city"'],
      ["tbl_item_title_ix", '"tenant_id", "title"'],
    ]) {
      expect(ddl.create).toContain(`CREATE INDEX IF NOT EXISTS "${name}" ON "tbl_item" (${columns})`);
    }
  });

  it("leaves out a reference's own index where a declared index leads with the reference, not its foreign key", () => {
    const Line = entity("TblLine", {
      naturalKey: "Guid",
      fields: {
        Item: reference("TblItem"),
        Uom: reference("TblUom"),
        Status: text(),
        Where: complex({ Uom: reference("TblUom") }),
      },
      indexes: [["Item", "Status"], ["Status", "Uom"], ["Where/Uom"]],
    });
    const ddl = tableDdl(entityTable(defineModel([Uom, Item, Line]), Line));
    const created = ddl.create.join("\n");
    // led by the reference: covered
    expect(created).not.toContain("tbl_line_item_guid_idx");
    // a nested value's reference too
    expect(created).not.toContain("tbl_line_where__uom_guid_idx");
    expect(created).toContain(
      'CREATE INDEX IF NOT EXISTS "tbl_line_where__uom_guid_ix" ON "tbl_line" ("tenant_id", "where__uom_guid")',
    );
    expect(created).toContain(
      'CREATE INDEX IF NOT EXISTS "tbl_line_item_guid_status_ix" ON "tbl_line" ("tenant_id", "item_guid", "status")',
    );
    // the reference comes second there: not covered
    expect(created).toContain(
      'CREATE INDEX IF NOT EXISTS "tbl_line_uom_guid_idx" ON "tbl_line" ("tenant_id", "uom_guid")',
    );
    const constraints = ddl.constraints.join("\n");
    expect(constraints).toMatch(/FOREIGN KEY \("tenant_id", "item_guid"\) REFERENCES "tbl_item"/);
    expect(constraints).toMatch(/FOREIGN KEY \("tenant_id", "uom_guid"\) REFERENCES "tbl_uom"/);
    expect(constraints).toMatch(/FOREIGN KEY \("tenant_id", "where__uom_guid"\) REFERENCES "tbl_uom"/);
  });

  it("refuses an index on what has no column", () => {
    const declare = (indexes: readonly (string | string[])[]) => () =>
      entity("TblBad", {
        naturalKey: "Guid",
        fields: { Name: text(), Address: complex({ City: text() }), Uoms: collection(Uom, { inverse: "Item" }) },
        indexes: indexes as never,
      });
    for (const bad of [["Nope"], ["Uoms"], ["Address"], ["Address/Nope"], ["Address/City/x"], [[]]]) {
      expect(declare(bad), JSON.stringify(bad)).toThrow(/index/);
    }
    expect(declare(["Name", "Address/City", ["Name", "Address/City"]])).not.toThrow();
  });

  it("makes a non-unique natural key a plain index and cascades owned items", () => {
    const ddl = tableDdl(entityTable(model, Uom));
    expect(ddl.create).toContain('CREATE INDEX IF NOT EXISTS "tbl_uom_nk" ON "tbl_uom" ("tenant_id", "name")');
    expect(ddl.constraints.join("\n")).toMatch(
      /FOREIGN KEY \("tenant_id", "item_guid"\) REFERENCES "tbl_item" \("tenant_id", "guid"\) ON DELETE CASCADE/,
    );
  });

  it("declares row-level security keyed on the current tenant, forced for the owner too", () => {
    const { security } = tableDdl(entityTable(model, Item));
    expect(security).toContain('ALTER TABLE "tbl_item" FORCE ROW LEVEL SECURITY');
    expect(security.join("\n")).toContain(`USING ("tenant_id" = current_setting('app.tenant_id', true))`);
  });
});
