/**
 * The records of a page, and of an expanded collection, are JSON text that PostgreSQL builds
 * (json-object.ts), while a record read at its own address is written in TypeScript from a flat
 * row (row-plan.ts). Both must give the same JSON for every kind of value, at every metadata level
 * and with IEEE754Compatible: strings that need escaping, nulls, exact decimals, times and
 * durations, a complex value with a reference inside it, a to-one expand, and the control
 * information.
 */
import {
  boolean,
  collection,
  complex,
  type Database,
  date,
  datetime,
  decimal,
  defineModel,
  duration,
  entity,
  enumeration,
  guid,
  integer,
  migrate,
  reference,
  text,
  timeOfDay,
} from "@bizdata/core";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { beforeAll, describe, expect, it } from "vitest";
import type { MetadataLevel } from "../compile/control-info.js";
import { ExactNumber, parseExactJson } from "../compile/exact-json.js";
import type { ODataRequest } from "./odata-request.js";
import { createODataService, type ODataService } from "./odata-service.js";

const Unit = entity("SvXjUnit", { naturalKey: "Code", fields: { Code: text({ required: true }), Name: text() } });
const Item = entity("SvXjItem", {
  naturalKey: "Guid",
  fields: {
    Box: reference("SvXjBox", { required: true }),
    Label: text(),
    Count: integer(),
    Price: decimal({ precision: 28, scale: 10 }),
    Done: boolean(),
    Day: date(),
    At: datetime(),
    Starts: timeOfDay(),
    Takes: duration(),
    External: guid(),
    Kind: enumeration(["small", "large"]),
    Unit: reference("SvXjUnit"),
    Size: complex({ Width: decimal({ precision: 12, scale: 3 }), Uom: reference("SvXjUnit") }),
  },
});
const Box = entity("SvXjBox", {
  naturalKey: "Code",
  fields: { Code: text({ required: true }), Items: collection(Item, { inverse: "Box" }) },
});
const model = defineModel([Unit, Item, Box]);

let db: Database;
let service: ODataService;
const tenantId = uniqueTenant("xjson");

const call = (request: Omit<ODataRequest, "tenantId" | "search"> & { search?: string }) =>
  service.handle({ ...request, tenantId, search: new URLSearchParams(request.search ?? "") });

/** strings that JSON must escape, or that only look like JSON */
const LABELS = [
  'say "hi"',
  "back\\slash",
  "line\nbreak\ttab",
  "bell\u0007",
  "emoji 📦 and ü",
  "</script>",
  '{"not":"an object"}',
  "",
];

let boxGuid: string;

beforeAll(async () => {
  db = await testDatabase();
  await migrate(db, model);
  service = createODataService({ db, model });
  for (const unit of [
    { Code: "kg", Name: 'kilo "gram"' },
    { Code: "m", Name: null },
  ]) {
    const created = await call({ method: "POST", path: "SvXjUnit", body: async () => unit });
    expect(created.status, created.body).toBe(201);
  }
  const items = LABELS.map((Label, i) => ({
    Label,
    Count: i === 2 ? null : i * 7 - 10,
    Price: i === 3 ? null : ["0.1", "123456789012345678.0123456789", "-3", "0"][i % 4],
    Done: i === 4 ? null : i % 2 === 0,
    Day: i === 5 ? null : `2024-0${(i % 9) + 1}-1${i}`,
    At: i === 6 ? null : `2024-03-0${i + 1}T0${i}:30:00.25+01:00`,
    Starts: i === 7 ? null : `1${i}:0${i}:00.5`,
    Takes: i === 1 ? null : ["PT45M", "-P2DT3H4M5.25S", "P1D"][i % 3],
    External: i === 0 ? null : `0000000${i}-0000-4000-8000-00000000000${i}`,
    Kind: i === 2 ? null : i % 2 === 0 ? "small" : "large",
    Unit: i % 3 === 0 ? null : i % 2 === 0 ? "kg" : "m",
    Size: i === 5 ? { Width: null, Uom: null } : { Width: `${i}.125`, Uom: "kg" },
  }));
  // decimals as strings, so that more digits than a double holds arrive exactly
  const box = await call({
    method: "POST",
    path: "SvXjBox",
    ieee754Compatible: true,
    body: async () => ({ Code: "b1", Items: items }),
  });
  expect(box.status, box.body).toBe(201);
  boxGuid = JSON.parse(box.body!).Guid;
});

const SELECT = "Label,Count,Price,Done,Day,At,Starts,Takes,External,Kind,Size";
const EXPAND = "Unit($select=Code,Name),Size/Uom($select=Name)";

/** a record's text as a page holds it: its own address's body without the context URL */
const asItem = (body: string) => body.replace(/^\{"@odata\.context":"[^"]*",?/, "{");

/** `$select` and `$expand` of a read, and how a collection expand takes them */
const shapes = [
  { name: "plain records", options: `$select=${SELECT}`, nested: `$select=${SELECT}` },
  {
    name: "records with expanded references",
    options: `$select=${SELECT}&$expand=${EXPAND}`,
    nested: `$select=${SELECT};$expand=${EXPAND}`,
  },
];

describe("a record's JSON in a page or an expanded collection, built by PostgreSQL", () => {
  for (const shape of shapes)
    for (const metadata of ["none", "minimal", "full"] as MetadataLevel[])
      for (const ieee754Compatible of [false, true])
        it(`is the JSON text it has at its own address: ${shape.name} (metadata ${metadata}, IEEE754Compatible ${ieee754Compatible})`, async () => {
          const options = { method: "GET", metadata, ieee754Compatible } as const;
          const read = async (path: string, search: string) => {
            const result = await call({ ...options, path, search });
            expect(result.status, result.body).toBe(200);
            return result.body!;
          };
          const guids = JSON.parse(await read("SvXjItem", "$select=Guid&$orderby=Label")).value.map(
            (i: { Guid: string }) => i.Guid,
          );
          expect(guids).toHaveLength(LABELS.length);
          // each record at its own address, written in TypeScript from a flat row
          const own = await Promise.all(
            guids.map(async (guid: string) => asItem(await read(`SvXjItem(${guid})`, shape.options))),
          );
          // the same text, member for member: no member twice (a reference expanded inside a
          // complex value is written in place of its Guid), none missing, in the same order
          const items = `[${own.join(",")}]`;
          const expanded = await read(
            `SvXjBox(${boxGuid})`,
            `$select=Code&$expand=Items(${shape.nested};$orderby=Label)`,
          );
          expect(expanded).toContain(`"Items":${items}`);
          const contained = await read(`SvXjBox(${boxGuid})/Items`, `${shape.options}&$orderby=Label`);
          expect(contained).toContain(`"value":${items}`);
          const page = await read("SvXjItem", `${shape.options}&$orderby=Label&$count=true`);
          expect(page).toContain(`"@odata.count":${LABELS.length},"value":${items}`);
          // the values themselves, beyond agreeing; numbers as their exact text, which a parse
          // to doubles would round
          const records = (parseExactJson(page) as any).value;
          expect(records.map((i: { Label: string }) => i.Label)).toEqual([...LABELS].sort());
          const big = records.find((i: { Count: ExactNumber | null }) => i.Count?.text === "-3");
          expect(big.Price).toEqual(
            ieee754Compatible ? "123456789012345678.0123456789" : new ExactNumber("123456789012345678.0123456789"),
          );
        });
});
