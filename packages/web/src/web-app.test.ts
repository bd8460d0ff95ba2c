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

const WAIT = 90_000;
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
  // the locale sets both navigator.languages and Accept-Language
  const context = await newClientContext(browser, { locale });
  ctx.onTestFinished(() => context.close());
  const page = await context.newPage();
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
  // the app takes the code out of the address before it exchanges it for a token: signed in is
  // when the tenant shows, and a test that navigated before that raced the exchange
  await page.locator(".who .tenant").waitFor();
  return page;
}

/** the first row's cells of the list table, as text */
const rowTexts = (page: Page) =>
  page
    .locator("table.list tbody tr")
    .evaluateAll((rows) => rows.map((r) => (r as unknown as { innerText: string }).innerText));

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
      await expect.poll(async () => (await rowTexts(page))[0], { timeout: WAIT }).toMatch(/^SKU-000045/);
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
        .poll(async () => (await rowTexts(page)).every((r) => r.toLowerCase().includes(word.toLowerCase())), {
          timeout: WAIT,
        })
        .toBe(true);
    },
    TEST_TIMEOUT,
  );
});

/** the Guid of the first record of `set` that `filter` finds */
const first = async (set: string, filter: string, more = ""): Promise<any> =>
  (await api("GET", `/${set}?$filter=${encodeURIComponent(filter)}&$top=1${more}`)).value[0];

/** opens a record's object page in the app */
async function openRecord(page: Page, set: string, guid: string): Promise<void> {
  await page.goto(`${host.url}/app/#/${set}(${guid})`);
  await page.locator("h1 .type").waitFor();
}

describe("object pages", () => {
  it(
    "open an order from its list: fields, the customer as a link, the lines as a table, a Read method's result",
    async (ctx) => {
      const page = await signedIn(ctx);
      await page.getByRole("navigation", { name: "Entity sets" }).getByRole("link", { name: "Sales orders" }).click();
      await page.getByRole("heading", { name: "Sales orders", level: 1 }).waitFor();
      await page.getByRole("button", { name: "Order number" }).click();
      await page.locator("th[aria-sort=ascending]").waitFor();
      await page.getByRole("link", { name: "SO-000001" }).click();
      await page.getByRole("heading", { name: "Sales order SO-000001" }).waitFor();
      const order = await first("SalesOrder", "DocNumber eq 'SO-000001'", "&$expand=SellToCustomer($select=Title)");
      const customer = page
        .getByRole("region", { name: "Customer" })
        .getByRole("link", { name: order.SellToCustomer.Title });
      await expect(customer.getAttribute("href")).resolves.toBe(`#/Customer(${order.SellToCustomer.Guid})`);
      const lines = page.getByRole("region", { name: "Lines" });
      await expect(lines.locator("tbody tr").count()).resolves.toBe(2);
      await expect(lines.locator("thead th").allInnerTexts()).resolves.toEqual([
        "Line",
        "Product",
        "Description",
        "Quantity",
        "Unit price",
      ]);
      if (shots) await page.screenshot({ path: join(shots, "object-page.png"), fullPage: true });
      // a Read method with typed parameters: the form, then its result
      await page.getByRole("button", { name: "CalculateLineTotal" }).click();
      const form = page.getByRole("dialog");
      expect(await form.getByLabel("taxRate").getAttribute("type")).toBe("number");
      expect(await form.getByLabel("discount").inputValue()).toBe("0");
      await form.getByLabel("taxRate").fill("0");
      await form.getByLabel("quantity").fill("2");
      await form.getByRole("button", { name: "Run" }).click();
      const result = page.getByRole("dialog", { name: "Result of CalculateLineTotal" });
      await result.waitFor();
      expect(Number((await result.getByRole("status").innerText()).replace(/,/g, ""))).toBeGreaterThan(0);
      await result.getByRole("button", { name: "Close" }).click();
    },
    TEST_TIMEOUT,
  );

  it(
    "show Post disabled on a posted journal and enabled on an open one, disabled once it is posted",
    async (ctx) => {
      const page = await signedIn(ctx);
      const posted = await first("Journal", "IsPosted eq true");
      const open = await first("Journal", "IsPosted eq false and Amount ne null");
      await openRecord(page, "Journal", posted.Guid);
      expect(await page.getByRole("button", { name: "Post" }).isDisabled()).toBe(true);
      await openRecord(page, "Journal", open.Guid);
      const post = page.getByRole("button", { name: "Post" });
      expect(await post.isEnabled()).toBe(true);
      await post.click();
      await page.getByRole("status").filter({ hasText: "Post done." }).waitFor();
      await expect.poll(() => post.isDisabled(), { timeout: WAIT }).toBe(true);
      expect((await api("GET", `/Journal(${open.Guid})?$select=IsPosted`)).IsPosted).toBe(true);
    },
    TEST_TIMEOUT,
  );
});

describe("editing in a workflow", () => {
  it(
    "adds a line by natural key, asks the credit-limit question as a dialog, saves once answered; a plain read has it",
    async (ctx) => {
      const page = await signedIn(ctx);
      const order = await first("SalesOrder", "Status eq 'Open' and DocNumber ne 'SO-000001'", "&$expand=Details");
      await openRecord(page, "SalesOrder", order.Guid);
      await page.getByRole("button", { name: "Edit" }).click();
      await page.getByRole("status").filter({ hasText: "Editing" }).waitFor();
      const form = page.getByRole("form", { name: "Add Order line" });
      await form.getByLabel("Product").fill("SKU-000007");
      await form.getByLabel("Quantity").fill("100000");
      await form.getByRole("button", { name: "Add" }).click();
      const lines = page.getByRole("region", { name: "Lines" });
      await expect.poll(() => lines.locator("tbody tr").count(), { timeout: WAIT }).toBe(order.Details.length + 1);
      // nothing reached the main data yet
      expect((await api("GET", `/SalesOrder(${order.Guid})?$expand=Details`)).Details).toHaveLength(
        order.Details.length,
      );
      await page.getByRole("button", { name: "Save" }).click();
      const dialog = page.getByRole("dialog", { name: "Question" });
      await dialog.waitFor();
      await expect(dialog.innerText()).resolves.toMatch(/over the credit limit/);
      // the focus is in the dialog and stays there
      const focused = () =>
        dialog.getByRole("button", { name: "Save anyway" }).evaluate((el) => el === el.ownerDocument.activeElement);
      await expect.poll(focused, { timeout: WAIT }).toBe(true);
      await page.keyboard.press("Tab");
      await page.keyboard.press("Tab");
      expect(await focused()).toBe(true);
      if (shots) await page.screenshot({ path: join(shots, "question-dialog.png") });
      await dialog.getByRole("button", { name: "Save anyway" }).click();
      await page.getByRole("status").filter({ hasText: "Saved." }).waitFor();
      await page.getByRole("button", { name: "Edit" }).waitFor();
      const stored = await api(
        "GET",
        `/SalesOrder(${order.Guid})?$expand=Details($select=Quantity;$expand=Product($select=SKU))`,
      );
      expect(stored.Details).toHaveLength(order.Details.length + 1);
      expect(stored.Details).toContainEqual(
        expect.objectContaining({ Quantity: 100000, Product: expect.objectContaining({ SKU: "SKU-000007" }) }),
      );
    },
    TEST_TIMEOUT,
  );

  it(
    "shows a save-time error on its field and stores nothing",
    async (ctx) => {
      const page = await signedIn(ctx);
      const order = await first("SalesOrder", "Status eq 'Open'", "&$skip=3&$expand=Details($select=Quantity)");
      await openRecord(page, "SalesOrder", order.Guid);
      await page.getByRole("button", { name: "Edit" }).click();
      await page.getByRole("status").filter({ hasText: "Editing" }).waitFor();
      const quantity = page.getByRole("region", { name: "Lines" }).getByLabel("Quantity, Line 1");
      await quantity.fill("0");
      // Save at once, as a person does who leaves the field by clicking it: the save waits for
      // the field's staged change, and its errors are not hidden by the change's answer
      await quantity.blur();
      await page.getByRole("button", { name: "Save" }).click();
      await page.getByRole("alert").filter({ hasText: "Nothing was saved" }).waitFor();
      const cell = page.getByRole("region", { name: "Lines" }).locator("td.invalid");
      expect(await cell.getByRole("alert").innerText()).toMatch(/Quantity must be greater than zero/);
      const stored = await api("GET", `/SalesOrder(${order.Guid})?$expand=Details($select=Quantity)`);
      expect(stored.Details.map((d: { Quantity: number }) => d.Quantity)).toEqual(
        order.Details.map((d: { Quantity: number }) => d.Quantity),
      );
      await page.getByRole("button", { name: "Discard" }).click();
      await page.getByRole("button", { name: "Edit" }).waitFor();
    },
    TEST_TIMEOUT,
  );

  it(
    "finds the open edit again after a reload, its staged change with it",
    async (ctx) => {
      const page = await signedIn(ctx);
      const order = await first("SalesOrder", "Status eq 'Open'", "&$skip=5&$select=Description");
      await openRecord(page, "SalesOrder", order.Guid);
      await page.getByRole("button", { name: "Edit" }).click();
      const description = page.getByRole("region", { name: "Order" }).getByLabel("Description");
      await description.fill("Changed in the web app");
      // the change is staged when its PATCH has answered: a reload before that would lose it
      const staged = page.waitForResponse((r) => r.request().method() === "PATCH");
      await description.blur();
      expect((await staged).status()).toBe(200);
      await page.reload();
      await page.getByRole("status").filter({ hasText: "still open" }).waitFor();
      expect(await description.inputValue()).toBe("Changed in the web app");
      expect((await api("GET", `/SalesOrder(${order.Guid})?$select=Description`)).Description).toBe(order.Description);
      await page.getByRole("button", { name: "Discard" }).click();
      await page.getByRole("button", { name: "Edit" }).waitFor();
      const key = encodeURIComponent(`SalesOrder(${order.Guid})`);
      expect(await api("GET", `/workflow/active?stagingKey=${key}`)).toMatchObject({ error: { code: "NotFound" } });
    },
    TEST_TIMEOUT,
  );
});

describe("a reader", () => {
  it(
    "sees no edit controls, and Read methods only",
    async (ctx) => {
      const page = await signedIn(ctx, "viewer");
      await expect(page.locator(".who").textContent()).resolves.toMatch(/Signed in as viewer/);
      const order = await first("SalesOrder", "Status eq 'Open'");
      await openRecord(page, "SalesOrder", order.Guid);
      await page.getByRole("button", { name: "CalculateLineTotal" }).waitFor();
      const buttons = await page.getByRole("toolbar").getByRole("button").allInnerTexts();
      expect(buttons).toEqual(["CalculateLineTotal"]);
      expect(await page.locator("main input, main select").count()).toBe(0);
    },
    TEST_TIMEOUT,
  );
});

describe("languages", () => {
  it(
    "shows the app's own texts in German for a browser that prefers it",
    async (ctx) => {
      const page = await signedIn(ctx, "demo", "de-DE");
      expect(await page.locator("html").getAttribute("lang")).toBe("de");
      await page.getByRole("button", { name: "Abmelden" }).waitFor();
      await page.getByRole("link", { name: "Journals" }).first().click();
      await page
        .getByRole("status")
        .filter({ hasText: /1–12 von 12/ })
        .waitFor();
    },
    TEST_TIMEOUT,
  );
});
