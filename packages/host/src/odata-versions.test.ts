/**
 * The OData version the host answers in (OData 4.01 Part 1 §8.2.6 `OData-MaxVersion`): 4.01, or
 * 4.0 for a client whose `OData-MaxVersion` says so, on every answer and on each `$batch` part;
 * the payloads are the same in both.
 */

import { type Caller, signedInTenant } from "@bizdata/test-kit/host-app";
import { beforeAll, describe, expect, it } from "vitest";

let admin: Caller;
let order: string;

beforeAll(async () => {
  ({ admin } = await signedInTenant("versions"));
  expect((await admin.request("POST", "/api/Customer", { Id: "V-C", CreditLimit: 100000 })).status).toBe(201);
  expect((await admin.request("POST", "/api/Product", { SKU: "V-P", Cost: 1, Price: 2 })).status).toBe(201);
  const res = await admin.request("POST", "/api/SalesOrder", {
    DocNumber: "SO-001",
    SellToCustomer: "V-C",
    Details: [
      { LineNumber: 1, Product: "V-P", Quantity: 1, UnitPrice: 2 },
      { LineNumber: 2, Product: "V-P", Quantity: 3, UnitPrice: 2 },
    ],
  });
  expect(res.status).toBe(201);
  order = ((await res.json()) as { Guid: string }).Guid;
});

/** GET with the query as written (the caller encodes what needs encoding) */
async function get(path: string, headers: Record<string, string> = {}) {
  const res = await admin.request("GET", path, undefined, headers);
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, body, headers: res.headers };
}

const q = encodeURIComponent;

describe("OData-MaxVersion", () => {
  let created = 0;

  it.each([
    [undefined, "4.01"],
    ["4.0", "4.0"],
    ["4.01", "4.01"],
  ])("OData-MaxVersion: %s → OData-Version %s on reads, writes, errors and $count", async (max, version) => {
    const headers: Record<string, string> = max === undefined ? {} : { "OData-MaxVersion": max };
    const responses = [
      await admin.request(
        "GET",
        `/api/SalesOrder(${order})?$select=DocNumber&$expand=Details($count=true)`,
        undefined,
        headers,
      ),
      await admin.request("GET", "/api/SalesOrder/$count", undefined, headers),
      await admin.request("GET", "/api/SalesOrder?$filter=Nope eq 1", undefined, headers),
      await admin.request("GET", "/api/NoSuchSet", undefined, headers),
      await admin.request("POST", "/api/Country", { Code: `V${++created}` }, headers),
      await admin.request("GET", "/api/", undefined, headers),
    ];
    expect(responses.map((r) => [r.status, r.headers.get("OData-Version")])).toEqual([
      [200, version],
      [200, version],
      [400, version],
      [404, version],
      [201, version],
      [200, version],
    ]);
  });

  it("a 4.0 read has the same body as a 4.01 read: no 4.01-only annotations or forms", async () => {
    const path = `/api/SalesOrder?$select=DocNumber&$filter=${q("Status eq 'Open'")}&$count=true&$top=1&$orderby=DocNumber&$expand=Details($select=Quantity;$count=true;$top=1;$orderby=LineNumber)`;
    const v40 = await get(path, { "OData-MaxVersion": "4.0" });
    const v401 = await get(path);
    expect(v40.status).toBe(200);
    expect(v40.body).toEqual(v401.body);
    const annotations = JSON.stringify(v40.body).match(/"[^"]*@[^"]*"/g) ?? [];
    // 4.0 JSON needs the `odata.` prefix that 4.01 lets a payload leave out
    expect(annotations.every((a) => a.includes("@odata."))).toBe(true);
    expect(annotations).toContain('"@odata.count"');
  });

  it("batch parts answer in the version the batch request asks for, unless a part asks otherwise", async () => {
    const res = await admin.request(
      "POST",
      "/api/$batch",
      {
        requests: [
          { id: "a", method: "GET", url: "SalesOrder/$count" },
          { id: "b", method: "GET", url: "SalesOrder/$count", headers: { "OData-MaxVersion": "4.01" } },
        ],
      },
      { "OData-MaxVersion": "4.0" },
    );
    expect(res.headers.get("OData-Version")).toBe("4.0");
    const { responses } = (await res.json()) as { responses: { id: string; headers: Record<string, string> }[] };
    expect(responses.map((r) => [r.id, r.headers["odata-version"]])).toEqual([
      ["a", "4.0"],
      ["b", "4.01"],
    ]);
  });
});
