/**
 * The host's OAuth sign-in and consent pages driven with plain HTTP: the forms posted as a
 * browser posts them, the cookies kept between requests, the redirects followed by hand. For
 * tests of what the server does with codes, grants and throttling, which need no browser (the
 * pages' keyboard and screen-reader behaviour is oauth-browser.ts's part); each agent names an
 * address of its own in `X-Forwarded-For`, as newClientContext does.
 */
import { randomBytes } from "node:crypto";
import type { SignInAnswers } from "./oauth-browser.js";

export interface FormAgent {
  /** GET or POST `url` with the agent's cookies and address; redirects are not followed */
  request(url: string, form?: Record<string, string>): Promise<Response>;
  /** the page's CSRF field */
  csrfOf(html: string): string;
}

export function formAgent(address = `2001:db8::${randomBytes(2).toString("hex")}:${randomBytes(2).toString("hex")}`) {
  const cookies = new Map<string, string>();
  const agent: FormAgent = {
    async request(url, form) {
      const res = await fetch(url, {
        method: form === undefined ? "GET" : "POST",
        redirect: "manual",
        headers: {
          "X-Forwarded-For": address,
          Cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join("; "),
          ...(form !== undefined && { "Content-Type": "application/x-www-form-urlencoded" }),
        },
        ...(form !== undefined && { body: new URLSearchParams(form).toString() }),
      });
      for (const line of res.headers.getSetCookie()) {
        const [pair = "", ...attributes] = line.split(";");
        const [name = "", value = ""] = pair.trim().split("=", 2) as [string, string];
        const gone = value === "" || attributes.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a));
        if (gone) cookies.delete(name);
        else cookies.set(name, value);
      }
      return res;
    },
    csrfOf(html) {
      const match = /name="csrf" value="([^"]+)"/.exec(html);
      if (match === null) throw new Error(`no CSRF field on the page:\n${html.slice(0, 500)}`);
      return match[1]!;
    },
  };
  return agent;
}

/** follows the redirects of `res` until a page answers, or the server sends the agent to `redirectUri` */
async function follow(agent: FormAgent, res: Response, base: string, redirectUri: string): Promise<Response | URL> {
  let current = res;
  while (current.status >= 300 && current.status < 400) {
    const location = new URL(current.headers.get("location")!, base);
    if (location.href.startsWith(redirectUri)) return location;
    current = await agent.request(location.href);
  }
  return current;
}

/**
 * Signs in and allows (or denies) through the pages' forms, and returns where the server sent the
 * agent back to at `redirectUri` (with `code` or `error`); `onConsent` sees the consent page.
 */
export async function authorizeWithForms(
  authorizationUrl: string,
  redirectUri: string,
  answers: Omit<SignInAnswers, "onConsent">,
  agent = formAgent(),
  onConsent?: (html: string) => void,
): Promise<URL> {
  const base = new URL(authorizationUrl).origin;
  const signInPage = await follow(agent, await agent.request(authorizationUrl), base, redirectUri);
  if (signInPage instanceof URL) return signInPage;
  // each form posts back to the page's own address
  const signIn = await agent.request(signInPage.url, {
    csrf: agent.csrfOf(await signInPage.text()),
    tenant: answers.tenant,
    username: answers.username,
    password: answers.password,
    decision: "sign-in",
  });
  const consentPage = await follow(agent, signIn, base, redirectUri);
  if (consentPage instanceof URL) return consentPage;
  const consentHtml = await consentPage.text();
  onConsent?.(consentHtml);
  const consent = await agent.request(consentPage.url, {
    csrf: agent.csrfOf(consentHtml),
    decision: answers.decision ?? "accept",
  });
  const back = await follow(agent, consent, base, redirectUri);
  if (back instanceof URL) return back;
  throw new Error(`the server did not send the agent back to the client: ${back.status} ${await back.text()}`);
}
