import { defineModel, entity, text } from "@bizdata/core";
import { sampleModel } from "@bizdata/examples";
import { testDatabase } from "@bizdata/test-kit/database";
import { config, testApp } from "@bizdata/test-kit/host-app";
import { describe, expect, it } from "vitest";
import { createApp } from "../app.js";
import { loadSigningKeys } from "../auth/signing-keys.js";
import { migrateService } from "../schema.js";

describe("health", () => {
  it("answers /health and /health/ready 200 when the database holds the schema", async () => {
    const app = await testApp();
    const live = await app.request("/health");
    expect([live.status, await live.json()]).toEqual([200, { status: "ok" }]);
    const ready = await app.request("/health/ready");
    expect([ready.status, await ready.json()]).toEqual([200, { status: "ready" }]);
  });

  it("answers /health/ready 503 with Retry-After while tables of the schema are missing, /health 200", async () => {
    const db = await testDatabase();
    await migrateService(db, sampleModel);
    // an entity no test migrates: its table and its staged copy are missing
    const model = defineModel([
      ...sampleModel.entities.values(),
      entity("HealthNeverMigrated", { naturalKey: "Code", fields: { Code: text({ required: true }) } }),
    ]);
    const app = createApp({ db, model, keys: await loadSigningKeys(db), config });
    const ready = await app.request("/health/ready");
    const body = (await ready.json()) as { error: { code: string; message: string } };
    expect([ready.status, ready.headers.get("Retry-After"), body.error.code]).toEqual([503, "5", "ServiceUnavailable"]);
    expect(body.error.message).toContain("2 tables missing");
    expect((await app.request("/health")).status).toBe(200);
  });
});
