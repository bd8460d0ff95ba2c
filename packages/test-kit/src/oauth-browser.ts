/**
 * Drives the host's OAuth sign-in and consent pages in headless Chromium (playwright-core with the
 * system's /usr/bin/chromium), the way a user does: type the tenant, user name and password,
 * then allow or deny. Returns where the server sent the browser back to the client.
 */
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { type Browser, chromium, type Page } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** a headless Chromium, or why there is none (tests skip with that reason) */
export async function launchBrowser(): Promise<{ browser: Browser } | { reason: string }> {
  if (!existsSync(CHROMIUM)) return { reason: `no Chromium at ${CHROMIUM} (apt-get install -y chromium)` };
  try {
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    });
    return { browser };
  } catch (err) {
    return { reason: `Chromium at ${CHROMIUM} did not start: ${(err as Error).message.split("\n")[0]}` };
  }
}

/**
 * A fresh browser context that names an address of its own (documentation range) in
 * `X-Forwarded-For`: a host that trusts loopback proxies counts its failed sign-ins apart.
 */
export const newClientContext = (browser: Browser, options: { readonly locale?: string } = {}) =>
  browser.newContext({
    ...options,
    extraHTTPHeaders: {
      "X-Forwarded-For": `2001:db8::${randomBytes(2).toString("hex")}:${randomBytes(2).toString("hex")}`,
    },
  });

export interface SignInAnswers {
  readonly tenant: string;
  readonly username: string;
  readonly password: string;
  /** what to press on the consent page (default "accept") */
  readonly decision?: "accept" | "deny";
  /** looks at (or acts on) the consent page before the decision */
  readonly onConsent?: (page: Page) => Promise<void>;
}

/**
 * Opens `authorizationUrl` in a fresh browser context, signs in and allows (or denies), and
 * returns the URL the browser was sent back to at `redirectUri` (with `code` or `error`). Nothing
 * has to listen at the redirect URI: the browser's request to it is what is returned.
 */
export async function authorizeInBrowser(
  browser: Browser,
  authorizationUrl: string,
  redirectUri: string,
  answers: SignInAnswers,
): Promise<URL> {
  const context = await newClientContext(browser);
  try {
    const page = await context.newPage();
    // the request to the redirect URI is all a test needs: whether anything answers it does not matter
    const returned = page.waitForRequest((request) => request.url().startsWith(redirectUri));
    await page.goto(authorizationUrl);
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    await page.getByLabel("Tenant").fill(answers.tenant);
    await page.getByLabel("User name").fill(answers.username);
    await page.getByLabel("Password").fill(answers.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Allow access?" }).waitFor();
    await answers.onConsent?.(page);
    await page.getByRole("button", { name: answers.decision === "deny" ? "Deny" : "Allow" }).click();
    return new URL((await returned).url());
  } finally {
    await context.close();
  }
}
