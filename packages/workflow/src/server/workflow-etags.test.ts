/**
 * ETags inside a workflow (api-conventions: ETags, Commit conflicts): a record the workflow
 * staged carries the ETag of its staged image, `W/"<main version>+<stagings>"`, which moves with
 * every staging and with every change of the main record underneath; If-Match holds a staged
 * change to it (412, nothing staged, index not advanced). A commit that the main data overtook
 * answers 400 StagedRecordChanged; the workflow then reads the record again and stages its change
 * with the ETag it now shows, which re-bases the change on the main record: the commit succeeds,
 * with the main data's newer values where the workflow changed nothing.
 */

import { dataOf } from "@bizdata/test-kit/host-app";
import { type Client, workflow, workflowHarness } from "@bizdata/test-kit/workflow-harness";
import { beforeAll, describe, expect, it } from "vitest";

let admin: Client;

beforeAll(async () => {
  const harness = await workflowHarness();
  admin = harness.as(await harness.tenant("wf-etags"), "admin");
});

async function product(sku: string) {
  const res = await admin.request("POST", "/api/Product", { SKU: sku, Cost: 10, Price: 20, SalesDescription: "Old" });
  expect(res.status).toBe(201);
  return res.body.Guid as string;
}

const select = "$select=Cost,Price,SalesDescription";
const mainRecord = async (guid: string) => {
  const res = await admin.request("GET", `/api/Product(${guid})?${select}`);
  return { etag: res.headers.ETag, ...dataOf(res.body) };
};

describe("ETags in a workflow", () => {
  it("tags a staged record with its main version and its stagings, and leaves the main ETag alone", async () => {
    const guid = await product("WE-1");
    const wf = await workflow(admin);
    const before = await wf.step("GET", `/api/Product(${guid})`);
    expect(before.headers.ETag).toBe('W/"1"');
    const staged = await wf.step("PATCH", `/api/Product(${guid})?${select}`, { Cost: 11 });
    expect(staged.headers.ETag).toBe('W/"1+1"');
    expect(staged.body["@odata.etag"]).toBe('W/"1+1"');
    const again = await wf.step("PATCH", `/api/Product(${guid})`, { Cost: 12 });
    expect(again.headers.ETag).toBe('W/"1+2"');
    const list = (await wf.step("GET", `/api/Product?$filter=SKU eq 'WE-1'`)).body;
    expect(list.value[0]["@odata.etag"]).toBe('W/"1+2"');
    // the main data has not moved
    expect((await mainRecord(guid)).etag).toBe('W/"1"');
    // a record created in the workflow has no main version yet
    const created = await wf.step("POST", "/api/Product", { SKU: "WE-NEW" });
    expect(created.headers.ETag).toBe('W/"0+1"');
  });

  it("refuses a staged change whose If-Match is stale: 412, nothing staged, the index stays", async () => {
    const guid = await product("WE-2");
    const wf = await workflow(admin);
    await wf.step("PATCH", `/api/Product(${guid})`, { Cost: 11 });
    const at = wf.index;
    const stale = await wf.step("PATCH", `/api/Product(${guid})`, { Cost: 99 }, wf.index, { "If-Match": 'W/"1"' });
    expect(stale.status).toBe(412);
    expect(stale.body.error.code).toBe("PreconditionFailed");
    expect(stale.headers.ETag).toBe('W/"1+1"');
    expect(wf.index).toBe(at);
    const current = await wf.step("PATCH", `/api/Product(${guid})?${select}`, { Cost: 13 }, wf.index, {
      "If-Match": 'W/"1+1"',
    });
    expect(current.status).toBe(200);
    expect(dataOf(current.body).Cost).toBe(13);
  });

  it("moves a staged record's ETag when the main record changes underneath", async () => {
    const guid = await product("WE-3");
    const wf = await workflow(admin);
    await wf.step("PATCH", `/api/Product(${guid})`, { Cost: 11 });
    expect((await admin.request("PATCH", `/api/Product(${guid})`, { Price: 30 })).status).toBe(200);
    const read = await wf.step("GET", `/api/Product(${guid})`);
    expect(read.headers.ETag).toBe('W/"2+1"');
    // what the client saw before the main change no longer holds
    const stale = await wf.step("PATCH", `/api/Product(${guid})`, { Cost: 12 }, wf.index, { "If-Match": 'W/"1+1"' });
    expect(stale.status).toBe(412);
  });

  it("resolves a commit conflict: read again, stage with the ETag shown, commit with the main data merged", async () => {
    const guid = await product("WE-4");
    const wf = await workflow(admin);
    expect((await wf.step("PATCH", `/api/Product(${guid})`, { Cost: 11 })).status).toBe(200);
    // meanwhile the main data changes the same property and another one
    expect((await admin.request("PATCH", `/api/Product(${guid})`, { Cost: 50, SalesDescription: "New" })).status).toBe(
      200,
    );
    const conflict = await wf.commit();
    expect(conflict.status).toBe(400);
    const body = conflict.body;
    expect(body.error.code).toBe("StagedRecordChanged");
    expect(Object.keys(body["@workflow.userprompts"])).toEqual([`${guid}.Cost`]);
    expect((await mainRecord(guid)).Cost).toBe(50);

    // staged again without If-Match: the change stays based on what it was made against
    await wf.step("PATCH", `/api/Product(${guid})`, { Cost: 12 });
    expect((await wf.commit()).status).toBe(400);

    // read again in the workflow: the ETag names the main version now
    const reread = await wf.step("GET", `/api/Product(${guid})?${select}`);
    const etag = reread.headers.ETag!;
    expect(etag).toBe('W/"2+2"');
    const restaged = await wf.step("PATCH", `/api/Product(${guid})?${select}`, { Cost: 13 }, wf.index, {
      "If-Match": etag,
    });
    expect(restaged.status).toBe(200);
    // re-based: what the workflow did not change shows the main data's value now
    expect(dataOf(restaged.body)).toEqual({ Guid: guid, Cost: 13, Price: 20, SalesDescription: "New" });

    const commit = await wf.commit();
    expect(commit.status, JSON.stringify(commit.body)).toBe(200);
    expect(await mainRecord(guid)).toEqual({
      etag: 'W/"3"',
      Guid: guid,
      Cost: 13,
      Price: 20,
      SalesDescription: "New",
    });
  });

  it("keeps merging what the workflow did not change when the main data moves again after the re-base", async () => {
    const guid = await product("WE-5");
    const wf = await workflow(admin);
    await wf.step("PATCH", `/api/Product(${guid})`, { Cost: 11 });
    await admin.request("PATCH", `/api/Product(${guid})`, { Cost: 50 });
    expect((await wf.commit()).status).toBe(400);
    const etag = (await wf.step("GET", `/api/Product(${guid})`)).headers.ETag!;
    await wf.step("PATCH", `/api/Product(${guid})`, { Cost: 12 }, wf.index, { "If-Match": etag });
    // another change to another property after the re-base merges at commit as always
    await admin.request("PATCH", `/api/Product(${guid})`, { Price: 31 });
    expect((await wf.commit()).status).toBe(200);
    expect(dataOf(await mainRecord(guid))).toMatchObject({ Cost: 12, Price: 31 });
  });

  it("re-bases a staged delete the same way", async () => {
    const guid = await product("WE-6");
    const wf = await workflow(admin);
    await wf.step("PATCH", `/api/Product(${guid})`, { Cost: 11 });
    await admin.request("PATCH", `/api/Product(${guid})`, { Cost: 50 });
    const etag = (await wf.step("GET", `/api/Product(${guid})`)).headers.ETag!;
    expect((await wf.step("DELETE", `/api/Product(${guid})`, undefined, wf.index, { "If-Match": etag })).status).toBe(
      204,
    );
    expect((await wf.commit()).status).toBe(200);
    expect((await admin.request("GET", `/api/Product(${guid})`)).status).toBe(404);
  });
});
