/**
 * The parts of OpenAPI 3.1 the generated document uses, as plain data. Schemas are JSON Schema
 * 2020-12 (OpenAPI 3.1's dialect), so a `$ref` may stand beside other keywords.
 */
import type { JsonSchema } from "../json-schema/json-schema.js";

export type Schema = JsonSchema;

export interface Reference {
  readonly $ref: string;
}

export interface Parameter {
  readonly name: string;
  readonly in: "query" | "header" | "path";
  readonly description?: string;
  readonly required?: boolean;
  readonly schema: Schema;
}

export type Content = Readonly<Record<string, { readonly schema: Schema }>>;

export interface Header {
  readonly description?: string;
  readonly schema: Schema;
}

export interface Response {
  readonly description: string;
  readonly headers?: Readonly<Record<string, Header | Reference>>;
  readonly content?: Content;
}

export type Responses = Readonly<Record<string, Response | Reference>>;

export type SecurityRequirement = Readonly<Record<string, readonly string[]>>;

export interface Operation {
  readonly operationId: string;
  readonly tags: readonly string[];
  readonly summary: string;
  readonly description?: string;
  readonly parameters?: readonly (Parameter | Reference)[];
  readonly requestBody?: { readonly description?: string; readonly required: boolean; readonly content: Content };
  readonly responses: Responses;
  readonly security?: readonly SecurityRequirement[];
}

export const HTTP_METHODS = ["get", "post", "patch", "delete"] as const;

export type PathItem = { readonly parameters?: readonly (Parameter | Reference)[] } & {
  readonly [method in (typeof HTTP_METHODS)[number]]?: Operation;
};

export type Paths = Record<string, PathItem>;

export type SecurityScheme =
  | { readonly type: "http"; readonly scheme: "bearer"; readonly bearerFormat: string; readonly description: string }
  | {
      readonly type: "oauth2";
      readonly description: string;
      readonly flows: {
        readonly authorizationCode: {
          readonly authorizationUrl: string;
          readonly tokenUrl: string;
          readonly scopes: Readonly<Record<string, string>>;
        };
      };
    }
  | { readonly type: "openIdConnect"; readonly description: string; readonly openIdConnectUrl: string };

export interface OpenApiDocument {
  readonly openapi: "3.1.0";
  readonly info: { readonly title: string; readonly version: string; readonly description: string };
  readonly servers: readonly { readonly url: string }[];
  readonly tags: readonly { readonly name: string; readonly description?: string }[];
  readonly paths: Paths;
  readonly components: {
    readonly schemas: Readonly<Record<string, Schema>>;
    readonly parameters: Readonly<Record<string, Parameter>>;
    readonly responses: Readonly<Record<string, Response>>;
    readonly headers: Readonly<Record<string, Header>>;
    readonly securitySchemes: Readonly<Record<string, SecurityScheme>>;
  };
}
