/**
 * The docs page as a person uses it, in headless Chromium (Debian's `chromium`, driven by
 * playwright-core) against the host on a loopback port: it loads from this host alone, lists the
 * entity sets, and a request tried on it answers 401 until the page is authorized, then 200 with
 * the tenant's data, whether the token was pasted into Authorize or came from trying sign-in.
 * Without a Chromium that launches, the tests are skipped, saying why.
 *
 * Every wait is on an element or a request, with generous limits: the machine may be busy.
 */
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { PASSWORD, signedInTenant, signIn } from "@bizdata/test-kit/host-app";
import { type ServerType, serve } from "@hono/node-server";
import { type Browser, chromium, type Locator, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, type TestContext } from "vitest";

const CHROMIUM = "/usr/bin/chromium";
const WAIT = 90_000;
const TEST_TIMEOUT = 240_000;

let browser: Browser | undefined;
let unavailable = "";
let server: ServerType | undefined;
let base: string;
let tenantId: string;
let token: string;
let entitySets: string[];

beforeAll(async () => {
  const { app, admin } = await signedInTenant("docs");
  tenantId = admin.tenantId;
  token = await signIn(app, tenantId, "admin");
  expect((await admin.request("POST", "/api/Product", { SKU: "DOCS-1", SalesDescription: "Docs kettle" })).status).toBe(
    201,
  );
  const root = (await (await admin.request("GET", "/api/")).json()) as { value: { name: string; kind: string }[] };
  entitySets = root.value.filter((v) => v.kind === "EntitySet").map((v) => v.name);

  server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 });
  await once(server, "listening");
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
      timeout: WAIT,
    });
  } catch (err) {
    unavailable = `Chromium cannot be launched from ${CHROMIUM}: ${String((err as Error).message).split("\n")[0]}`;
    console.warn(`docs page tests skipped. ${unavailable}`);
  }
}, TEST_TIMEOUT);

afterAll(async () => {
  await browser?.close();
  if (server) await new Promise((done) => server!.close(done));
});

interface DocsPage {
  readonly page: Page;
  /** every URL the page asked for */
  readonly requested: string[];
  /** console errors (a blocked script or style shows here) and uncaught exceptions */
  readonly problems: string[];
}

/** the docs page in a fresh browser context, once Swagger UI has rendered the document */
async function openDocs(ctx: TestContext): Promise<DocsPage> {
  if (browser === undefined) return ctx.skip(unavailable);
  const context = await browser.newContext();
  ctx.onTestFinished(() => context.close());
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT);
  const requested: string[] = [];
  const problems: string[] = [];
  page.on("request", (r) => requested.push(r.url()));
  page.on("console", (m) => {
    // an answer's status is the tests' to check; a policy violation or script error is a problem
    if (m.type() === "error" && !m.text().startsWith("Failed to load resource: the server responded with a status of"))
      problems.push(m.text());
  });
  page.on("pageerror", (e) => problems.push(e.message));
  await page.goto(`${base}/docs`, { timeout: WAIT });
  await page.locator(".opblock-tag").first().waitFor();
  return { page, requested, problems };
}

/** the operation block of `method path`, opened (its tag first) */
async function openOperation(page: Page, tag: string, method: string, path: string): Promise<Locator> {
  const tagHeading = page.locator(`.opblock-tag[data-tag="${tag}"]`);
  if ((await tagHeading.getAttribute("data-is-open")) !== "true") await tagHeading.click();
  const block = page.locator(`.opblock.opblock-${method}`, {
    has: page.locator(`.opblock-summary-path[data-path="${path}"]`),
  });
  await block.locator(".opblock-summary-control").click();
  await block.locator(".try-out__btn").click();
  return block;
}

/** clicks Execute and waits for the answer's status code */
async function execute(block: Locator, status: number): Promise<void> {
  await block.locator("button.execute").click();
  await block.locator(".live-responses-table tbody td.response-col_status", { hasText: String(status) }).waitFor();
}

/** the answer's body as Swagger UI shows it */
const responseBody = async (block: Locator): Promise<any> =>
  JSON.parse((await block.locator(".live-responses-table .response-col_description pre").first().textContent()) ?? "");

describe("the docs page in Chromium", () => {
  it(
    "loads from this host alone and lists every entity set",
    async (ctx) => {
      const { page, requested, problems } = await openDocs(ctx);
      const tags = await page.locator(".opblock-tag").evaluateAll((els) => els.map((e) => e.getAttribute("data-tag")));
      expect(entitySets.length).toBeGreaterThan(0);
      expect(tags.slice(0, entitySets.length)).toEqual(entitySets);
      expect(tags).toContain("Sign-in and tokens");
      await expect(page.title()).resolves.toBe("bizdata API reference");
      expect(requested.filter((url) => !url.startsWith(`${base}/`))).toEqual([]);
      expect(requested).toContain(`${base}/api/openapi.json`);
      expect(problems).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    "answers a tried request 401 until authorized with a token, then 200 with the tenant's data",
    async (ctx) => {
      const { page, problems } = await openDocs(ctx);
      const block = await openOperation(page, "Product", "get", "/Product");
      await block.locator('tr[data-param-name="$select"] input').fill("SKU,SalesDescription");
      await execute(block, 401);

      await page.locator(".auth-wrapper button.authorize").click();
      await page.locator(".modal-ux input").fill(token);
      await page.locator(".modal-ux button.authorize").click();
      await page.locator(".modal-ux button.btn-done").click();
      const sent = page.waitForRequest((r) => r.url().startsWith(`${base}/api/Product?`));
      await execute(block, 200);
      expect((await sent).headers().authorization).toBe(`Bearer ${token}`);
      const body = await responseBody(block);
      expect(body.value).toEqual([expect.objectContaining({ SKU: "DOCS-1", SalesDescription: "Docs kettle" })]);
      expect(problems).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    "signs in through the sign-in operation, which authorizes the page for the next request",
    async (ctx) => {
      const { page, problems } = await openDocs(ctx);
      const signInBlock = await openOperation(page, "Sign-in and tokens", "post", "/auth/signin");
      await signInBlock
        .locator("textarea.body-param__text")
        .fill(JSON.stringify({ TenantId: tenantId, Username: "admin", Password: PASSWORD }));
      await execute(signInBlock, 200);
      await page.locator(".auth-wrapper button.authorize.locked").waitFor();

      const block = await openOperation(page, "Product", "get", "/Product");
      await block.locator('tr[data-param-name="$select"] input').fill("SKU");
      const sent = page.waitForRequest((r) => r.url().startsWith(`${base}/api/Product?`));
      await execute(block, 200);
      expect((await sent).headers().authorization).toMatch(/^Bearer ey/);
      expect((await responseBody(block)).value).toEqual([expect.objectContaining({ SKU: "DOCS-1" })]);
      expect(problems).toEqual([]);
    },
    TEST_TIMEOUT,
  );
});
