/**
 * The service root and `$metadata` over HTTP: authentication like the rest of `/api`, content
 * types and `OData-Version`, format by `$format` or `Accept`, version by `OData-MaxVersion`, and a
 * document shaped by the caller's tenant that agrees with what the tenant may call.
 */
import { defineModel, entity, method, migrate, text } from "@bizdata/core";
import { jsonSchemaErrors, xsdErrors } from "@bizdata/test-kit/csdl-validators";
import { testDatabase, uniqueTenant } from "@bizdata/test-kit/database";
import { type Caller, caller, config, PASSWORD, signedInTenant, signIn } from "@bizdata/test-kit/host-app";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../app.js";
import { loadSigningKeys } from "../auth/signing-keys.js";
import { createTenant, setFeature, setUser } from "../tenants/tenant-admin.js";

describe("the service root and $metadata of the sample service", () => {
  let admin: Caller;
  let reader: Caller;
  let app: Awaited<ReturnType<typeof signedInTenant>>["app"];
  beforeAll(async () => {
    ({ admin, reader, app } = await signedInTenant("metadata"));
  });

  it("answers the service document at /api/, and redirects /api there", async () => {
    const res = await reader.request("GET", "/api/");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    const body = (await res.json()) as { "@odata.context": string; value: unknown[] };
    expect(body["@odata.context"]).toBe("$metadata");
    expect(body.value).toContainEqual({ name: "Product", kind: "EntitySet", url: "Product" });
    expect(body.value).toContainEqual({ name: "GetOpenOrders", kind: "FunctionImport", url: "GetOpenOrders" });

    const redirect = await reader.request("GET", "/api?x=1");
    expect(redirect.status).toBe(308);
    expect(redirect.headers.get("location")).toBe("/api/?x=1");
  });

  it("says that the sets track changes, as the host keeps a change log, also to a $batch part", async () => {
    const direct = (await (await reader.request("GET", "/api/$metadata?$format=json")).json()) as any;
    expect(direct.bizdata.Container.Product["@Capabilities.ChangeTracking"]).toMatchObject({ Supported: true });
    const batch = await reader.request("POST", "/api/$batch", {
      requests: [{ id: "1", method: "GET", url: "$metadata?$format=json" }],
    });
    const [part] = ((await batch.json()) as { responses: { body: any }[] }).responses;
    expect(part!.body.bizdata.Container.Product["@Capabilities.ChangeTracking"]).toMatchObject({ Supported: true });
  });

  it("answers CSDL XML, Version 4.0, that validates against the OASIS schemas", async () => {
    const res = await reader.request("GET", "/api/$metadata");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/xml");
    expect(res.headers.get("odata-version")).toBe("4.0");
    const xml = await res.text();
    expect(xml).toContain('<edmx:Edmx Version="4.0"');
    expect(await xsdErrors(xml)).toEqual([]);
  });

  it("answers 4.01 when OData-MaxVersion admits it", async () => {
    const res = await reader.request("GET", "/api/$metadata", undefined, { "OData-MaxVersion": "4.01" });
    expect(res.headers.get("odata-version")).toBe("4.01");
    expect(await res.text()).toContain('<edmx:Edmx Version="4.01"');
    const json = await reader.request("GET", "/api/$metadata?$format=json", undefined, { "OData-MaxVersion": "4.0" });
    expect(json.headers.get("odata-version")).toBe("4.0");
    expect(((await json.json()) as { $Version: string }).$Version).toBe("4.0");
  });

  it.each<[string, Record<string, string>, "xml" | "json"]>([
    ["/api/$metadata?$format=json", {}, "json"],
    ["/api/$metadata?format=JSON", {}, "json"],
    ["/api/$metadata?$format=application/json;odata.metadata=minimal", {}, "json"],
    ["/api/$metadata", { Accept: "application/json" }, "json"],
    ["/api/$metadata?$format=xml", { Accept: "application/json" }, "xml"],
    ["/api/$metadata", { Accept: "application/json, text/plain, */*" }, "xml"],
    ["/api/%24metadata", {}, "xml"],
  ])("GET %s with %j answers %s", async (path, headers, format) => {
    const res = await reader.request("GET", path, undefined, headers);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe(`application/${format}`);
    const text = await res.text();
    if (format === "json") expect(jsonSchemaErrors(JSON.parse(text))).toEqual([]);
    else expect(text.startsWith("<?xml")).toBe(true);
  });

  it("refuses a $format it cannot serve", async () => {
    const res = await admin.request("GET", "/api/$metadata?$format=atom");
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: "UnsupportedFormat", target: "$format" } });
  });

  it.each(["/api/", "/api/$metadata"])("asks for a token at %s", async (path) => {
    const res = await app.request(path);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer /);
  });
});

describe("$metadata per tenant", () => {
  // a model of its own: one method of each kind behind a feature, one not
  const Tune = method({ description: "Tunes the gadget", type: "modify" });
  const Catalog = method({
    description: "The gadget catalog",
    type: "read",
    isStatic: true,
    returns: { kind: "collection", entity: "MdGadget" },
  });
  const Describe = method({ description: "Describes", type: "read", returns: { kind: "scalar", type: text() } });
  const Gadget = entity("MdGadget", {
    naturalKey: "Code",
    fields: { Code: text({ required: true }) },
    methods: { Tune, Catalog, Describe },
  });
  const model = defineModel([Gadget], { namespace: "acme" });
  model.subscribe(Tune, { name: "Tune", feature: "Tuning", run: () => undefined });
  model.subscribe(Catalog, { name: "Catalog", feature: "Tuning", run: () => [] });
  model.subscribe(Describe, { name: "Describe", run: () => "a gadget" });

  let tuned: Caller;
  let plain: Caller;
  beforeAll(async () => {
    const db = await testDatabase();
    await migrate(db, model);
    const app = createApp({ db, model, keys: await loadSigningKeys(db), config });
    const tenant = async (features: string[]) => {
      const tenantId = uniqueTenant("md");
      await createTenant(db, tenantId);
      for (const feature of features) await setFeature(db, tenantId, feature, true);
      await setUser(db, tenantId, "admin", PASSWORD, ["admin"]);
      return caller(app, tenantId, await signIn(app, tenantId, "admin"));
    };
    [tuned, plain] = await Promise.all([tenant(["Tuning"]), tenant([])]);
  });

  const csdl = async (c: Caller) =>
    (await (await c.request("GET", "/api/$metadata?$format=json")).json()) as Record<string, any>;

  it("offers a method only to the tenants it would not answer 403", async () => {
    const [withFeature, without] = [await csdl(tuned), await csdl(plain)];
    expect(withFeature.$EntityContainer).toBe("acme.Container");
    expect(Object.keys(withFeature.acme)).toEqual(expect.arrayContaining(["Tune", "Catalog", "Describe"]));
    expect(withFeature.acme.Container.Catalog).toEqual({
      $Function: "acme.Catalog",
      $EntitySet: "MdGadget",
      $IncludeInServiceDocument: true,
    });
    expect(without.acme.Tune).toBeUndefined();
    expect(without.acme.Catalog).toBeUndefined();
    expect(without.acme.Container.Catalog).toBeUndefined();
    expect(without.acme.Describe).toEqual(withFeature.acme.Describe);

    // and what the document leaves out is what the tenant cannot call
    const created = await plain.request("POST", "/api/MdGadget", { Code: "G1" });
    const { Guid } = (await created.json()) as { Guid: string };
    expect((await plain.request("POST", `/api/MdGadget(${Guid})/Tune`)).status).toBe(403);
    expect((await plain.request("GET", "/api/MdGadget/Catalog()")).status).toBe(403);
    expect((await tuned.request("GET", "/api/MdGadget/Catalog()")).status).toBe(200);
  });

  it("lists the function imports a tenant may call in its service document", async () => {
    const imports = async (c: Caller) =>
      ((await (await c.request("GET", "/api/")).json()) as { value: { kind: string; name: string }[] }).value
        .filter((e) => e.kind === "FunctionImport")
        .map((e) => e.name);
    expect(await imports(tuned)).toEqual(["Catalog"]);
    expect(await imports(plain)).toEqual([]);
  });
});
