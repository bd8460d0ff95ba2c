/**
 * The same app against a model of its own without a single annotation (examples/own-model: a
 * supplier and its parts) and a host without the OAuth server: the service's password sign-in,
 * a list with the default columns (natural key, title, a few stored properties) and an object
 * page with every field, the supplier a link to its record.
 */
import { randomUUID } from "node:crypto";
import { model } from "@bizdata/examples/own-model";
import { createTenant, setUser } from "@bizdata/host";
import { testDatabase } from "@bizdata/test-kit/database";
import { launchBrowser, newClientContext } from "@bizdata/test-kit/oauth-browser";
import { serveWebAppHost, type WebAppHost } from "@bizdata/test-kit/web-app-host";
import { afterAll, beforeAll, expect, it } from "vitest";

const launched = await launchBrowser();
if ("reason" in launched) console.warn(`own-model browser tests skipped: ${launched.reason}`);
const browser = "browser" in launched ? launched.browser : undefined;
const tenant = `acme-${randomUUID().slice(0, 8)}`;
let host: WebAppHost;

beforeAll(async () => {
  host = await serveWebAppHost({
    model,
    oauth: false,
    seed: async () => {
      const db = await testDatabase();
      await createTenant(db, tenant, "Acme Ltd");
      await setUser(db, tenant, "alice", "s3cret!", ["admin"]);
    },
  });
  const { access_token } = (await (
    await fetch(`${host.url}/api/auth/signin`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ TenantId: tenant, Username: "alice", Password: "s3cret!" }),
    })
  ).json()) as { access_token: string };
  const post = (set: string, body: unknown) =>
    fetch(`${host.url}/api/${set}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${access_token}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
  expect((await post("Supplier", { Code: "ACME", Name: "Acme Parts" })).status).toBe(201);
  expect((await post("Part", { PartNo: "P-1", Supplier: "ACME", Price: 12.5 })).status).toBe(201);
  expect((await post("Part", { PartNo: "P-2", Supplier: "ACME", Price: 3 })).status).toBe(201);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await host?.close();
});

it("renders usable pages from the defaults alone, signed in with the service's password sign-in", async (ctx) => {
  if (browser === undefined) return ctx.skip("no Chromium");
  const context = await newClientContext(browser);
  ctx.onTestFinished(() => context.close());
  const page = await context.newPage();
  page.setDefaultTimeout(90_000);
  await page.goto(`${host.url}/app/`);
  await page.getByLabel("Tenant").fill(tenant);
  await page.getByLabel("User name").fill("alice");
  await page.getByLabel("Password").fill("s3cret!");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Entity sets" }).waitFor();
  await page.getByRole("navigation").getByRole("link", { name: "Part" }).click();
  await page.getByRole("status").filter({ hasText: "1–2 of 2" }).waitFor();
  const headers = await page.locator("table.list thead tr:first-child th").allInnerTexts();
  expect(headers.map((h) => h.trim())).toEqual(["PartNo", "Title", "Price", "Supplier"]);
  await expect(page.locator("table.list tbody tr", { hasText: "P-1" }).innerText()).resolves.toMatch(
    /P-1\tP-1\t12.5\tAcme Parts/,
  );
  await page.getByRole("link", { name: "P-1" }).first().click();
  await page.getByRole("heading", { name: "Part P-1" }).waitFor();
  await page.getByRole("link", { name: "Acme Parts" }).click();
  await page.getByRole("heading", { name: "Supplier Acme Parts" }).waitFor();
  await page.getByRole("button", { name: "Edit" }).waitFor();
});
