/**
 * The service on plain data, as an embedder without the host drives it: requests in, `{status,
 * headers, body}` out, every URL under the configured base path, permissions asked before
 * anything is read or written.
 */
import { type Database, defineModel, entity, migrate, ServiceError, text } from "@bizdata/core";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { serviceCaller } from "@bizdata/test-kit/odata-service-caller";
import { beforeAll, describe, expect, it } from "vitest";
import { JOINED_PAGE_MOST } from "../compile/compile-read.js";
import { defaultBodyLimits, defaultQueryLimits } from "../limits.js";
import { type Access, type ODataRequest, odataRequestOf } from "./odata-request.js";
import { createODataService, type ODataService } from "./odata-service.js";

const Tool = entity("SvTool", {
  naturalKey: "Code",
  fields: { Code: text({ required: true }), Name: text() },
  hooks: {
    logic: [
      {
        name: "warn",
        run: ({ record, prompts }) => {
          if (record.Name === "warn") prompts.message({ text: "Named warn", severity: "warning" });
        },
      },
    ],
  },
});
const model = defineModel([Tool]);

let db: Database;
let service: ODataService;
const tenantId = uniqueTenant("service");
const asked: Access[] = [];

const call = serviceCaller(() => service, tenantId, asked);
const create = (body: unknown, more: Partial<Omit<ODataRequest, "search">> & { search?: string } = {}) =>
  call({ method: "POST", path: "SvTool", body: async () => body, ...more });

beforeAll(async () => {
  db = await testDatabase();
  await migrate(db, model);
  service = createODataService({
    db,
    model,
    basePath: "odata/v1/",
    queryLimits: { ...defaultQueryLimits, maxPageSize: 2 },
  });
});

describe("createODataService", () => {
  it("creates with a Guid-only body and a Location under the base path", async () => {
    asked.length = 0;
    const { status, headers, json } = await create({ Code: "T-1" });
    expect(status).toBe(201);
    expect(json).toEqual({
      "@odata.context": "/odata/v1/$metadata#SvTool(Guid)/$entity",
      "@odata.etag": 'W/"1"',
      Guid: expect.any(String),
    });
    expect(headers).toMatchObject({
      "Content-Type": "application/json;odata.metadata=minimal",
      Location: `/odata/v1/SvTool(${json.Guid})`,
      ETag: 'W/"1"',
    });
    expect(asked).toEqual([{ kind: "create", entity: "SvTool" }]);
  });

  it("shapes the created record by $select, and answers 204 to return=minimal", async () => {
    const shaped = await create({ Code: "T-2", Name: "Two" }, { search: "$select=Name" });
    expect(shaped.json).toEqual({
      "@odata.context": "/odata/v1/$metadata#SvTool(Name)/$entity",
      "@odata.etag": 'W/"1"',
      Guid: expect.any(String),
      Name: "Two",
    });
    const minimal = await create({ Code: "T-3" }, { returnPreference: "minimal" });
    expect(minimal.status).toBe(204);
    expect(minimal.body).toBeUndefined();
    expect(minimal.headers).toMatchObject({
      "Preference-Applied": "return=minimal",
      Location: expect.any(String),
      ETag: 'W/"1"',
    });
  });

  it("puts the prompts of a write into @userprompts", async () => {
    const { json } = await create({ Code: "T-4", Name: "warn" });
    // the context first, then the prompts, then the record
    expect(Object.keys(json)).toEqual(["@odata.context", "@userprompts", "@odata.etag", "Guid"]);
    expect(json).toEqual({
      "@odata.context": "/odata/v1/$metadata#SvTool(Guid)/$entity",
      "@userprompts": { global: [{ id: expect.any(String), text: "Named warn", severity: "warning" }] },
      "@odata.etag": 'W/"1"',
      Guid: expect.any(String),
    });
  });

  it("reads pages with a next link under the base path, counts, and reads one record", async () => {
    asked.length = 0;
    const page = await call({ method: "GET", path: "SvTool", search: "$select=Code&$orderby=Code" });
    expect(page.json.value.map((t: { Code: string }) => t.Code)).toEqual(["T-1", "T-2"]);
    expect(page.json["@odata.nextLink"]).toBe("/odata/v1/SvTool?%24select=Code&%24orderby=Code&%24skip=2");
    expect(asked).toEqual([{ kind: "read", entities: ["SvTool"] }]);
    const count = await call({ method: "GET", path: "SvTool/$count" });
    expect([count.status, count.headers["Content-Type"], count.body]).toEqual([200, "text/plain", "4"]);
    const guid = page.json.value[0].Guid;
    const one = await call({ method: "GET", path: `SvTool(${guid})`, search: "$select=Code" });
    expect(one.json).toEqual({
      "@odata.context": "/odata/v1/$metadata#SvTool(Code)/$entity",
      "@odata.etag": 'W/"1"',
      Guid: guid,
      Code: "T-1",
    });
    expect(one.headers.ETag).toBe('W/"1"');
  });

  it("updates and deletes, asking for each", async () => {
    const { json } = await create({ Code: "T-5" });
    asked.length = 0;
    const patched = await call({ method: "PATCH", path: `SvTool(${json.Guid})`, body: async () => ({ Name: "Five" }) });
    expect(patched.json).toEqual({
      "@odata.context": "/odata/v1/$metadata#SvTool(Guid)/$entity",
      "@odata.etag": 'W/"2"',
      Guid: json.Guid,
    });
    expect(patched.headers.ETag).toBe('W/"2"');
    const deleted = await call({ method: "DELETE", path: `SvTool(${json.Guid})` });
    expect(deleted.status).toBe(204);
    expect(asked).toEqual([
      { kind: "update", entity: "SvTool" },
      { kind: "delete", entity: "SvTool" },
    ]);
    await expect(call({ method: "GET", path: `SvTool(${json.Guid})` })).rejects.toMatchObject({ status: 404 });
  });

  it.each([
    ["a write without a body", { method: "POST", path: "SvTool" }, 415],
    ["a refused permission", { method: "GET", path: "SvTool", refuse: true }, 403],
    ["POST on a record", { method: "POST", path: "SvTool(00000000-0000-0000-0000-000000000001)" }, 405],
    ["PUT", { method: "PUT", path: "SvTool" }, 405],
    ["an unknown entity set", { method: "GET", path: "Nope" }, 404],
  ])("throws a ServiceError for %s", async (_, request, status) => {
    const { refuse, ...rest } = request as ODataRequest & { refuse?: boolean };
    const error = await service
      .handle({
        ...rest,
        search: new URLSearchParams(),
        tenantId,
        ...(refuse && {
          authorize: () => {
            throw new ServiceError("Forbidden", "no");
          },
        }),
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).status).toBe(status);
  });
});

describe("odataRequestOf", () => {
  it("reads a fetch Request under its base path", async () => {
    const request = new Request("http://host/odata/v1/SvTool?$select=Code", {
      method: "POST",
      headers: { "Content-Type": "application/json;IEEE754Compatible=true", Prefer: "return=minimal" },
      body: '{"Code":"T-6"}',
    });
    const plain = odataRequestOf(request, { basePath: "/odata/v1", tenantId, bodyLimits: defaultBodyLimits });
    expect(plain).toMatchObject({
      method: "POST",
      path: "SvTool",
      tenantId,
      returnPreference: "minimal",
      ieee754Compatible: true,
    });
    expect(plain.search.get("$select")).toBe("Code");
    expect(await plain.body?.()).toEqual({ Code: "T-6" });
  });

  it("refuses a malformed percent-encoding in the path as a syntax error in the path", async () => {
    const request = new Request("http://host/api/SvTool(%E0%A4%A)");
    await expect(
      service.handle(odataRequestOf(request, { basePath: "/api", tenantId, bodyLimits: defaultBodyLimits })),
    ).rejects.toMatchObject({
      name: "QuerySyntaxError",
      option: "path",
      problem: expect.stringContaining("malformed percent-encoding"),
    });
  });

  it("has no body for a request without a Content-Type", () => {
    const request = new Request("http://host/api/SvTool/Do", { method: "POST" });
    expect(odataRequestOf(request, { basePath: "/api", tenantId, bodyLimits: defaultBodyLimits }).body).toBeUndefined();
  });
});

describe("a page joined into one row and a page of a row per record", () => {
  it("answer alike, texts with quotes, commas and backslashes included", async () => {
    const tenant = uniqueTenant("page-forms");
    const on = (maxPageSize: number) => {
      const paged = createODataService({
        db,
        model,
        basePath: "/api",
        queryLimits: { ...defaultQueryLimits, maxPageSize },
      });
      return serviceCaller(() => paged, tenant, []);
    };
    // a server page of JOINED_PAGE_MOST is joined into one row; one larger comes a row per record
    const joined = on(JOINED_PAGE_MOST);
    const rows = on(JOINED_PAGE_MOST + 1);
    for (const [code, name] of [
      ["P-1", 'a,"b",c'],
      ["P-2", "back\\slash, {brace}"],
      ["P-3", null],
    ])
      expect(
        (await joined({ method: "POST", path: "SvTool", body: async () => ({ Code: code, Name: name }) })).status,
      ).toBe(201);
    for (const search of [
      "$select=Code,Name&$orderby=Code desc&$count=true",
      "$select=Name&$filter=Code eq 'none'&$count=true",
      "$skip=1&$orderby=Code",
    ]) {
      // the larger server page: a row per record; the joined one cut at its server page, and
      // under a $top of its own
      const b = await rows({ method: "GET", path: "SvTool", search });
      expect(b.status, search).toBe(200);
      for (const top of ["", `&$top=${JOINED_PAGE_MOST}`])
        expect((await joined({ method: "GET", path: "SvTool", search: search + top })).body, search + top).toBe(b.body);
    }
    const page = await joined({ method: "GET", path: "SvTool", search: "$select=Code,Name&$orderby=Code" });
    expect(page.json.value.map((t: { Name: string | null }) => t.Name)).toEqual([
      'a,"b",c',
      "back\\slash, {brace}",
      null,
    ]);
  });
});
