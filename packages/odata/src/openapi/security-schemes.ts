/**
 * How a caller authenticates (spec 5.2-5.4): a bearer JWT from sign-in always, and one OAuth2
 * scheme per trusted third-party issuer. An issuer whose authorization and token endpoints are
 * configured gets the authorization-code flow (with PKCE, as OAuth 2.1 requires); one known by
 * its issuer address alone is described by its discovery document (`openIdConnect`).
 */
import type { SecurityRequirement, SecurityScheme } from "./openapi-types.js";

export interface OAuthIssuer {
  /** the issuer identifier (`iss`) */
  readonly issuer: string;
  readonly authorizationEndpoint?: string;
  readonly tokenEndpoint?: string;
}

export interface OAuthSettings {
  readonly issuers: readonly OAuthIssuer[];
  /** the scopes this API knows: reading, and reading and writing */
  readonly scopes: { readonly read: string; readonly write: string };
}

export const BEARER = "bearer";

/** the scheme name of the issuer at `index` of `count` */
const oauthName = (index: number, count: number) => (count === 1 ? "oauth2" : `oauth2-${index + 1}`);

export function securitySchemes(oauth: OAuthSettings | undefined): Record<string, SecurityScheme> {
  const schemes: Record<string, SecurityScheme> = {
    [BEARER]: {
      type: "http",
      scheme: "bearer",
      bearerFormat: "JWT",
      description: "The access token from `POST /auth/signin` (or `/auth/refresh`).",
    },
  };
  if (oauth === undefined) return schemes;
  const { issuers, scopes } = oauth;
  for (const [i, { issuer, authorizationEndpoint, tokenEndpoint }] of issuers.entries()) {
    const description = `An access token from ${issuer}: \`${scopes.read}\` reads and calls Read methods, \`${scopes.write}\` also writes.`;
    schemes[oauthName(i, issuers.length)] =
      authorizationEndpoint !== undefined && tokenEndpoint !== undefined
        ? {
            type: "oauth2",
            description,
            flows: {
              authorizationCode: {
                authorizationUrl: authorizationEndpoint,
                tokenUrl: tokenEndpoint,
                scopes: {
                  [scopes.read]: "Read records and call Read methods.",
                  [scopes.write]: "Read and write records and call every method.",
                },
              },
            },
          }
        : {
            type: "openIdConnect",
            description,
            openIdConnectUrl: `${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`,
          };
  }
  return schemes;
}

/**
 * The security of an operation: the bearer token, or an OAuth2 token with the scope the
 * operation needs (a read, or a write).
 */
export function securityRequirement(oauth: OAuthSettings | undefined, access: "read" | "write"): SecurityRequirement[] {
  if (oauth === undefined) return [{ [BEARER]: [] }];
  const { issuers, scopes } = oauth;
  return [{ [BEARER]: [] }, ...issuers.map((_, i) => ({ [oauthName(i, issuers.length)]: [scopes[access]] }))];
}
