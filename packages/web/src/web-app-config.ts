/**
 * What the app reads from `config.json` beside its page before anything else: where the service
 * is, and the OAuth client it signs in as. Every field may be left out: the service defaults to
 * `/api` on the page's origin, and without a client id the app registers itself with the
 * authorization server (RFC 7591), as any public client may.
 */
export interface WebAppConfig {
  /** the service root, absolute or relative to the page's origin (default `/api`) */
  readonly service?: string;
  /** the OAuth client id the app signs in as, registered with the host's authorization server */
  readonly clientId?: string;
}

/** the client id the host registers for the app it serves (a public client: PKCE, no secret) */
export const WEB_APP_CLIENT_ID = "bizdata-web";
