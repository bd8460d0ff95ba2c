/**
 * The SQL of `$search`, without a database: every term is a parameter of `plainto_tsquery` or
 * `phraseto_tsquery` (so no character of it is tsquery or SQL syntax), the operators come from
 * the tree, and the document is the searchable columns joined, as the index holds it.
 */
import { defineModel, entity, text } from "@bizdata/core";
import { PgDialect } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import { bindQuery } from "../bind/bind-query.js";
import { parseQueryOptions } from "../syntax/parse-query-options.js";
import { compileCollection } from "./compile-read.js";

const Item = entity("Item", {
  naturalKey: "Code",
  fields: { Code: text({ required: true, searchable: true }), Note: text({ searchable: true }), Other: text() },
});
const model = defineModel([Item]);
const dialect = new PgDialect();

const compile = (search: string) =>
  dialect.sqlToQuery(
    compileCollection(bindQuery(model, Item, parseQueryOptions({ $search: search })), {
      tenantId: "t1",
      ieee754Compatible: false,
    }).statement,
  );

describe("$search SQL", () => {
  it("matches the searchable columns' document against a tsquery of parameters", () => {
    const q = compile('blue OR NOT "red widget" green');
    expect(q.sql).toContain(
      `to_tsvector('simple'::regconfig, coalesce("t0"."code", '') || ' ' || coalesce("t0"."note", '')) @@ (plainto_tsquery('simple', $2::text) || ((!! phraseto_tsquery('simple', $3::text)) && plainto_tsquery('simple', $4::text)))`,
    );
    expect(q.sql).not.toContain('"other"');
    expect(q.params.slice(0, 4)).toEqual(["t1", "blue", "red widget", "green"]);
  });

  it.each(["O'Brien", "a&b", "a|b", "!a", "a:*", "a\\\\b", "x'); DROP TABLE item; --"])(
    "sends %j as a parameter, never as statement text",
    (term) => {
      const q = compile(`"${term.replaceAll('"', '\\"')}"`);
      expect(q.params).toContain(term.replaceAll("\\\\", "\\"));
      expect(q.sql).not.toContain(term);
    },
  );
});
