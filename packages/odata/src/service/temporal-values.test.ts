/**
 * Times of day (Edm.TimeOfDay, `time`) and durations (Edm.Duration, `interval`) end to end, on
 * the database the suite runs on: written in their wire form, read back in it (flat rows and
 * expanded collections alike), compared with literals (`13:20:00`, `duration'P1DT2H'`, `'P1D'`),
 * moved by `add`/`sub`, taken apart by functions, and seen by business logic as written.
 */
import {
  collection,
  type Database,
  date,
  datetime,
  defineModel,
  duration,
  entity,
  migrate,
  reference,
  text,
  timeOfDay,
} from "@bizdata/core";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { beforeAll, describe, expect, it } from "vitest";
import type { ODataRequest } from "./odata-request.js";
import { createODataService, type ODataService } from "./odata-service.js";

const Break = entity("SvTmBreak", {
  naturalKey: "Guid",
  fields: { Shift: reference("SvTmShift", { required: true }), Starts: timeOfDay(), Length: duration() },
});
const Shift = entity("SvTmShift", {
  naturalKey: "Code",
  fields: {
    Code: text({ required: true }),
    Opens: timeOfDay(),
    Closes: timeOfDay({ default: "17:00" }),
    Travel: duration(),
    Day: date(),
    Start: datetime(),
    Breaks: collection(Break, { inverse: "Shift" }),
  },
  hooks: {
    logic: [
      {
        name: "echo",
        on: ["Code"],
        // what business logic sees of a stored record: the wire forms, not PostgreSQL's
        run: ({ record, prompts }) => prompts.message({ text: `${record.Opens} ${record.Travel}`, severity: "info" }),
      },
    ],
  },
});
const model = defineModel([Break, Shift]);

let db: Database;
let service: ODataService;
const tenantId = uniqueTenant("temporal");

const call = async (request: Omit<ODataRequest, "tenantId" | "search"> & { search?: string }) => {
  // the values are the point here, not the control information
  const result = await service.handle({
    metadata: "none",
    ...request,
    tenantId,
    search: new URLSearchParams(request.search ?? ""),
  });
  return { ...result, json: result.body?.startsWith("{") ? JSON.parse(result.body) : result.body };
};
const read = (search: string) => call({ method: "GET", path: "SvTmShift", search });
/** the codes of the shifts a filter selects, in order */
const codes = async (filter: string, orderby = "Code") =>
  (await read(`$select=Code&$filter=${encodeURIComponent(filter)}&$orderby=${orderby}`)).json.value.map(
    (s: { Code: string }) => s.Code,
  );

const shifts = [
  {
    Code: "early",
    Opens: "06:00",
    Travel: "PT45M",
    Day: "2024-03-01",
    Start: "2024-03-01T06:00:00Z",
    Breaks: [{ Starts: "09:00:00", Length: "PT15M" }],
  },
  {
    Code: "day",
    Opens: "08:30:00",
    Closes: "16:30:00.25",
    Travel: "P1DT2H",
    Day: "2024-03-02",
    Start: "2024-03-02T08:30:00+01:00",
    Breaks: [
      { Starts: "12:00", Length: "PT0.5S" },
      { Starts: "15:00", Length: "-PT1M" },
    ],
  },
  { Code: "late", Opens: "13:20:00.5", Travel: "PT26H", Day: "2024-02-28", Start: "2024-02-28T23:30:00Z" },
  { Code: "none", Opens: null, Travel: null },
  { Code: "back", Opens: "23:59:59.999999", Travel: "-P2DT3H4M5.25S" },
];

beforeAll(async () => {
  db = await testDatabase();
  await migrate(db, model);
  service = createODataService({ db, model });
  for (const shift of shifts) {
    const created = await call({ method: "POST", path: "SvTmShift", body: async () => shift });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
  }
});

describe("times of day and durations", () => {
  it("come back in their wire form, in rows and in expanded collections", async () => {
    const { json } = await read(
      "$select=Code,Opens,Closes,Travel&$orderby=Code&$expand=Breaks($select=Starts,Length;$orderby=Starts)",
    );
    expect(
      json.value.map(({ Guid: _, Breaks, ...s }: any) => ({
        ...s,
        Breaks: Breaks.map(({ Guid: __, ...b }: any) => b),
      })),
    ).toEqual([
      { Code: "back", Opens: "23:59:59.999999", Closes: "17:00:00", Travel: "-P2DT3H4M5.25S", Breaks: [] },
      {
        Code: "day",
        Opens: "08:30:00",
        Closes: "16:30:00.25",
        Travel: "P1DT2H",
        Breaks: [
          { Starts: "12:00:00", Length: "PT0.5S" },
          { Starts: "15:00:00", Length: "-PT1M" },
        ],
      },
      {
        Code: "early",
        Opens: "06:00:00",
        Closes: "17:00:00",
        Travel: "PT45M",
        Breaks: [{ Starts: "09:00:00", Length: "PT15M" }],
      },
      // a day is 24 hours: PT26H is P1DT2H
      { Code: "late", Opens: "13:20:00.5", Closes: "17:00:00", Travel: "P1DT2H", Breaks: [] },
      { Code: "none", Opens: null, Closes: "17:00:00", Travel: null, Breaks: [] },
    ]);
  });

  it.each([
    ["Opens lt 08:30", ["early"]],
    ["Opens le 08:30:00", ["day", "early"]],
    ["Opens gt 13:20:00.4 and Opens lt 13:20:00.6", ["late"]],
    ["Opens in (06:00,08:30:00)", ["day", "early"]],
    ["Opens eq null", ["none"]],
    ["Travel gt duration'P1D'", ["day", "late"]],
    ["Travel eq duration'PT26H'", ["day", "late"]],
    ["Travel eq 'P1DT2H'", ["day", "late"]],
    ["Travel lt duration'PT0S'", ["back"]],
    ["Travel in ('PT45M',duration'P1DT2H')", ["day", "early", "late"]],
    ["-Travel gt duration'P2D'", ["back"]],
    ["Travel add duration'PT15M' eq duration'PT1H'", ["early"]],
    ["Travel sub 'PT45M' eq duration'PT0S'", ["early"]],
    ["Opens add duration'PT30M' eq 09:00", ["day"]],
    // a time of day moved past midnight wraps around
    ["Opens add Travel eq 10:30", ["day"]],
    ["Closes sub Opens gt duration'PT10H'", ["early"]],
    ["Start add duration'PT1H' gt 2024-03-01T06:30:00Z", ["day", "early"]],
    ["Start sub duration'P1D' lt 2024-02-28T00:00:00Z", ["late"]],
    ["Start sub 2024-03-01T00:00:00Z eq duration'PT6H'", ["early"]],
    ["Day add duration'P1D' eq 2024-02-29", ["late"]],
    ["Day sub 2024-03-01 eq duration'P1D'", ["day"]],
    ["Day sub duration'P2D' eq 2024-02-28", ["early"]],
    ["hour(Opens) eq 8 and minute(Opens) eq 30 and second(Opens) eq 0", ["day"]],
    ["fractionalseconds(Opens) eq 0.5", ["late"]],
    ["totalseconds(Travel) eq 93600", ["day", "late"]],
    ["time(Start) eq 07:30", ["day"]],
    ["date(Start) eq 2024-02-28", ["late"]],
    ["Breaks/any(b: b/Length lt duration'PT1S' and b/Starts ge 12:00)", ["day"]],
  ])("$filter=%s", async (filter, expected) => {
    expect((await codes(filter)).sort()).toEqual([...expected].sort());
  });

  it("orders by a duration and computes new ones", async () => {
    expect(await codes("Travel ne null", "Travel desc,Code")).toEqual(["day", "late", "early", "back"]);
    const { json } = await read(
      `$select=Code,Length,Leaves,Arrives&$filter=Code eq 'early'&$compute=${encodeURIComponent("Closes sub Opens as Length,Closes add Travel as Leaves,Start add duration'P1DT0.5S' as Arrives")}`,
    );
    expect(json.value).toEqual([
      {
        Guid: expect.any(String),
        Code: "early",
        Length: "PT11H",
        Leaves: "17:45:00",
        Arrives: "2024-03-02T06:00:00.500000Z",
      },
    ]);
  });

  it.each([
    ["Opens eq 'x'", "compares timeOfDay with string"],
    ["Travel eq 1", "compares duration with integer"],
    ["Travel eq 'P1M'", "compares duration with string"],
    ["Opens add Opens eq 08:00", "timeOfDay add timeOfDay is not defined"],
    ["Travel sub Start eq Start", "duration sub datetime is not defined"],
    ["Travel mul 2 eq Travel", "mul needs numbers"],
    ["hour(Day) eq 1", "argument 1 of hour() must be a date-time or time of day"],
    ["totalseconds(Opens) eq 1", "argument 1 of totalseconds() must be duration"],
    ["-Opens eq Opens", "is not a number or a duration"],
  ])("$filter=%s → 400 saying why", async (filter, problem) => {
    await expect(read(`$filter=${encodeURIComponent(filter)}`)).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining(problem),
    });
  });

  it.each([
    [{ Opens: "24:00" }, "Opens", "must be a time of day"],
    [{ Opens: "8:30" }, "Opens", "must be a time of day"],
    [{ Travel: "P1M" }, "Travel", "must be a duration"],
    [{ Travel: "1 day" }, "Travel", "must be a duration"],
    [{ Breaks: [{ Length: "-P" }] }, "Breaks[0].Length", "must be a duration"],
  ])("a write of %j → 400 naming %s", async (body, target, message) => {
    await expect(
      call({ method: "POST", path: "SvTmShift", body: async () => ({ Code: "bad", ...body }) }),
    ).rejects.toMatchObject({
      status: 400,
      details: [expect.objectContaining({ target, message: expect.stringContaining(message) })],
    });
  });

  it("business logic sees a stored record's values in their wire form", async () => {
    const [guid] = (await read("$filter=Code eq 'back'")).json.value.map((s: { Guid: string }) => s.Guid);
    const patched = await call({ method: "PATCH", path: `SvTmShift(${guid})`, body: async () => ({ Code: "back2" }) });
    expect(patched.json["@userprompts"].global[0].text).toBe("23:59:59.999999 -P2DT3H4M5.25S");
  });
});
