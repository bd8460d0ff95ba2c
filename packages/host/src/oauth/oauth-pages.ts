/**
 * The sign-in and consent pages of the OAuth server: plain server-rendered HTML with one inline
 * style sheet and no script or external asset, so they work with a keyboard and a screen reader
 * and under a Content-Security-Policy that allows nothing else. Every value is escaped.
 */
import { createHash } from "node:crypto";
import { SCOPES } from "../auth/trusted-issuers.js";

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch] ?? ch);

const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1d2330}
main{max-width:26rem;margin:3rem auto;padding:1.5rem 2rem;background:#fff;border-radius:6px;box-shadow:0 1px 3px #0003}
h1{font-size:1.4rem;margin:0 0 .5rem}
h2{font-size:1.1rem}
label{display:block;margin:.9rem 0 .2rem;font-weight:600}
input{width:100%;box-sizing:border-box;padding:.5rem;font:inherit;border:1px solid #6b7280;border-radius:4px}
button{font:inherit;padding:.5rem 1.1rem;border-radius:4px;border:1px solid #1d4ed8;cursor:pointer;margin:1.2rem .5rem 0 0}
button.primary{background:#1d4ed8;color:#fff}
button.secondary{background:#fff;color:#1d4ed8}
:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.error{background:#fef2f2;border:1px solid #b91c1c;color:#7f1d1d;padding:.6rem .8rem;border-radius:4px}
.note{color:#4b5563;font-size:.9rem}
.warning{background:#fffbeb;border:1px solid #b45309;color:#78350f;padding:.6rem .8rem;border-radius:4px}
ul{padding-left:1.2rem}`;

/** the Content-Security-Policy of every page: its own style sheet, nothing else, never in a frame */
export const PAGE_POLICY = `default-src 'none'; style-src 'sha256-${createHash("sha256").update(STYLE).digest("base64")}'; frame-ancestors 'none'; base-uri 'none'`;

const page = (title: string, body: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>`;

/** what each scope lets the application do, in the user's words */
const SCOPE_TEXT: Record<string, string> = {
  [SCOPES.read]: "Read your business data",
  [SCOPES.write]: "Create, change and delete business data",
  offline_access: "Keep this access when you are not using the application",
  openid: "Know who you are",
};

export const describeScope = (scope: string) => SCOPE_TEXT[scope] ?? scope;

export interface ClientView {
  /** the registered name, or the client id */
  readonly name: string;
  /** where it sends you back: shown so that a look-alike name cannot hide another site */
  readonly redirectHost: string;
  /** a client known by its metadata document: the host that publishes it, who vouches for the name */
  readonly publishedBy?: string;
  /** it returns only to this machine, where any program may listen (a client metadata document cannot prove which) */
  readonly loopbackOnly?: boolean;
}

const clientLine = (client: ClientView) =>
  `<p><strong>${escapeHtml(client.name)}</strong>${client.publishedBy === undefined ? "" : ` (described by ${escapeHtml(client.publishedBy)})`} (returns to ${escapeHtml(client.redirectHost)}) asks to use your business data.</p>${
    client.loopbackOnly
      ? `<p class="warning">It returns to a program on this computer: allow it only if you started ${escapeHtml(client.name)} yourself.</p>`
      : ""
  }`;

const hidden = (name: string, value: string) =>
  `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`;

export interface SignInView {
  readonly action: string;
  readonly csrf: string;
  readonly client: ClientView;
  readonly error?: string;
  readonly tenant?: string;
  readonly username?: string;
}

export function signInPage(view: SignInView): string {
  const error =
    view.error === undefined ? "" : `<p id="error" class="error" role="alert">${escapeHtml(view.error)}</p>`;
  const describedBy = view.error === undefined ? "" : ' aria-describedby="error"';
  return page(
    "Sign in",
    `<h1>Sign in</h1>
${clientLine(view.client)}
${error}
<form method="post" action="${escapeHtml(view.action)}">
${hidden("csrf", view.csrf)}
<label for="tenant">Tenant</label>
<input id="tenant" name="tenant" autocomplete="organization" required maxlength="64" value="${escapeHtml(view.tenant ?? "")}"${describedBy}${view.tenant ? "" : " autofocus"}>
<label for="username">User name</label>
<input id="username" name="username" autocomplete="username" required maxlength="128" value="${escapeHtml(view.username ?? "")}"${describedBy}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024"${describedBy}${view.tenant ? " autofocus" : ""}>
<button class="primary" type="submit" name="decision" value="sign-in">Sign in</button>
<button class="secondary" type="submit" name="decision" value="deny" formnovalidate>Cancel</button>
</form>`,
  );
}

export interface ConsentView {
  readonly action: string;
  readonly csrf: string;
  readonly client: ClientView;
  /** who is signed in: `user` of `tenant` */
  readonly tenant: string;
  readonly username: string;
  readonly scopes: readonly string[];
}

export function consentPage(view: ConsentView): string {
  const items = view.scopes.map(
    (s) => `<li>${escapeHtml(describeScope(s))} <span class="note">(${escapeHtml(s)})</span></li>`,
  );
  return page(
    "Allow access?",
    `<h1>Allow access?</h1>
${clientLine(view.client)}
<p>Signed in as <strong>${escapeHtml(view.username)}</strong> of tenant <strong>${escapeHtml(view.tenant)}</strong>.</p>
<h2 id="asks">It asks to</h2>
<ul aria-labelledby="asks">${items.length > 0 ? items.join("") : "<li>Nothing beyond signing you in</li>"}</ul>
<p class="note">It can never do more than your own roles allow.</p>
<form method="post" action="${escapeHtml(view.action)}">
${hidden("csrf", view.csrf)}
<button class="primary" type="submit" name="decision" value="accept" autofocus>Allow</button>
<button class="secondary" type="submit" name="decision" value="deny">Deny</button>
</form>`,
  );
}

export function errorPage(title: string, message: string): string {
  return page(title, `<h1>${escapeHtml(title)}</h1>\n<p role="alert">${escapeHtml(message)}</p>`);
}
