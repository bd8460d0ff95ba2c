/**
 * The row writer without a database: each row value stands for the column it was selected from
 * (`"t1"."code"` → `t1.code`), so the JSON a row is written as shows which column went where, and
 * it must parse whatever the shape. The cases are those the host's data cannot reach: references
 * written into a complex value that has no member of its own.
 */
import { complex, defineModel, entity, reference, text } from "@bizdata/core";
import { PgDialect } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import { bindQuery } from "../bind/bind-query.js";
import { parseQueryOptions } from "../syntax/parse-query-options.js";
import { compileSingle } from "./compile-read.js";

const Region = entity("Region", { naturalKey: "Code", fields: { Code: text({ required: true }) } });
const Site = entity("Site", {
  naturalKey: "Name",
  fields: { Name: text(), Where: complex({ Country: reference("Region"), State: reference("Region") }) },
});
const model = defineModel([Region, Site]);
const dialect = new PgDialect();

/** the JSON of one row of a Site read, each value named after its column; `nulls` are columns read as null */
function written(options: Record<string, string>, metadata: "none" | "minimal", nulls: readonly string[] = []) {
  const query = bindQuery(model, model.entity("Site")!, parseQueryOptions(options));
  const compiled = compileSingle(query, "g1", { tenantId: "t1", ieee754Compatible: false, metadata });
  const columns = [...dialect.sqlToQuery(compiled.statement).sql.matchAll(/("t\d+"\."\w+")(?:::text)? AS "(c\d+)"/g)];
  const row = Object.fromEntries(
    columns.map(([, column, alias]) => {
      const name = column!.replaceAll('"', "");
      return [alias!, nulls.includes(name) ? null : name];
    }),
  );
  return JSON.parse(compiled.write(row));
}

describe("rowPlan's writer", () => {
  it("writes references into a complex value that has no member of its own, separated by commas", () => {
    const body = written(
      { $select: "Where", $expand: "Where/Country($select=Code),Where/State($select=Code)" },
      "none",
    );
    expect(body).toEqual({
      Guid: "t0.guid",
      Where: { Country: { Guid: "t1.guid", Code: "t1.code" }, State: { Guid: "t2.guid", Code: "t2.code" } },
    });
  });

  it("gathers references into a complex value that is not selected, and writes a missing one as null", () => {
    const body = written({ $expand: "Where/Country($select=Code),Where/State" }, "minimal", ["t1.guid"]);
    expect(body).toEqual({
      "@odata.etag": 'W/"t0.row_version"',
      Guid: "t0.guid",
      Where: { Country: null, State: { "@odata.etag": 'W/"t2.row_version"', Guid: "t2.guid" } },
    });
  });
});
