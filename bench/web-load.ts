/**
 * The web app's first load of a list, in headless Chromium against the reference host on this
 * machine (its demo tenants with the test data set, PGlite in memory): signed in once through the
 * OAuth pages, then `/app/#/Product` loaded with the browser cache cleared, five times. Reports
 * the bytes transferred (page, script, style sheet, config.json, `$metadata`, the caller's rights,
 * the first page of rows: headers included, as Chromium counts them) and the time from the start
 * of navigation to the first rendered row, as medians.
 *
 *   node --import tsx bench/web-load.ts
 */
import { gzipSync } from "node:zlib";
import { launchBrowser, newClientContext } from "@bizdata/test-kit/oauth-browser";
import { builtWebApp, serveWebAppHost } from "@bizdata/test-kit/web-app-host";

const RUNS = 5;
const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const launched = await launchBrowser();
if ("reason" in launched) throw new Error(launched.reason);
const { browser } = launched;
const host = await serveWebAppHost();
try {
  const context = await newClientContext(browser);
  const page = await context.newPage();
  page.setDefaultTimeout(120_000);
  await page.goto(`${host.url}/app/`);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByLabel("Tenant").fill("demo");
  await page.getByLabel("User name").fill("demo");
  await page.getByLabel("Password").fill("demo");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "Allow" }).click();
  await page.waitForURL(`${host.url}/app/`);
  await page.locator(".who").waitFor();

  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
  const urls = new Map<string, string>();
  let bytes = new Map<string, number>();
  cdp.on("Network.requestWillBeSent", (e) => urls.set(e.requestId, e.request.url));
  cdp.on("Network.loadingFinished", (e) => bytes.set(e.requestId, e.encodedDataLength));

  const runs: { bytes: number; requests: number; firstRow: number }[] = [];
  let last = new Map<string, number>();
  for (let run = 0; run < RUNS; run++) {
    await cdp.send("Network.clearBrowserCache");
    bytes = new Map();
    await page.goto(`${host.url}/app/#/Product`);
    await page.reload();
    await page.locator("table.list tbody tr").first().waitFor();
    const firstRow = await page.evaluate(() => performance.now());
    await page.waitForLoadState("networkidle");
    runs.push({ bytes: [...bytes.values()].reduce((a, b) => a + b, 0), requests: bytes.size, firstRow });
    last = bytes;
  }
  const files = await builtWebApp();
  const index = await files.file("index.html");
  const assets = [...new TextDecoder().decode(index!.body).matchAll(/(assets\/[^"]+)"/g)].map((m) => m[1]!);
  console.log(`| measure (median of ${RUNS}) | value |\n|---|---|`);
  console.log(
    `| transferred, first load of the list | ${(median(runs.map((r) => r.bytes)) / 1024).toFixed(1)} KiB in ${median(runs.map((r) => r.requests))} requests |`,
  );
  console.log(`| time to the first rendered row | ${median(runs.map((r) => r.firstRow)).toFixed(0)} ms |`);
  for (const asset of assets) {
    const file = await files.file(asset);
    console.log(
      `| ${asset} | ${(file!.body.length / 1024).toFixed(1)} KiB (${(gzipSync(file!.body).length / 1024).toFixed(1)} KiB gzipped) |`,
    );
  }
  console.log("\nthe last run's requests:");
  for (const [id, size] of last)
    console.log(`  ${(size / 1024).toFixed(1).padStart(7)} KiB  ${urls.get(id)?.replace(host.url, "")}`);
} finally {
  await browser.close();
  await host.close();
}
