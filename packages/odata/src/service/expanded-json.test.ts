/**
 * An expanded collection's items are JSON text that PostgreSQL builds (json-object.ts), while the
 * same records read at their own address are written in TypeScript from flat rows (row-plan.ts).
 * Both must give the same JSON for every kind of value, at every metadata level and with
 * IEEE754Compatible: strings that need escaping, nulls, exact decimals, times and durations, a
 * complex value with a reference inside it, a to-one expand, and the control information.
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
import { beforeAll, describe, expect, it } from "vitest";
import { testDatabase, uniqueTenant } from "../../../../test/database.js";
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

describe("an expanded collection's JSON, built by PostgreSQL", () => {
  for (const metadata of ["none", "minimal", "full"] as MetadataLevel[])
    for (const ieee754Compatible of [false, true])
      it(`is the JSON the same items have at their own address (metadata ${metadata}, IEEE754Compatible ${ieee754Compatible})`, async () => {
        const options = { method: "GET", metadata, ieee754Compatible } as const;
        const expanded = await call({
          ...options,
          path: `SvXjBox(${boxGuid})`,
          search: `$select=Code&$expand=Items($select=${SELECT};$expand=${EXPAND};$orderby=Label)`,
        });
        const own = await call({
          ...options,
          path: `SvXjBox(${boxGuid})/Items`,
          search: `$select=${SELECT}&$expand=${EXPAND}&$orderby=Label`,
        });
        expect(expanded.status, expanded.body).toBe(200);
        expect(own.status, own.body).toBe(200);
        // numbers as their exact text: a parse to doubles would hide a difference in digits
        const exact = (body: string) => parseExactJson(body) as any;
        const items = exact(expanded.body!).Items;
        expect(items).toHaveLength(LABELS.length);
        expect(items).toEqual(exact(own.body!).value);
        // the values themselves, beyond agreeing
        expect(items.map((i: { Label: string }) => i.Label)).toEqual([...LABELS].sort());
        const big = items.find((i: { Count: ExactNumber | null }) => i.Count?.text === "-3");
        expect(big.Price).toEqual(
          ieee754Compatible ? "123456789012345678.0123456789" : new ExactNumber("123456789012345678.0123456789"),
        );
      });
});
