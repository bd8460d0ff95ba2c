/**
 * The parts of JSON Schema 2020-12 the service's descriptions use, as plain data: OpenAPI 3.1's
 * dialect (so a `$ref` may stand beside other keywords) and what MCP tools declare as their input.
 */
export interface JsonSchema {
  readonly $ref?: string;
  readonly type?: string | readonly string[];
  readonly format?: string;
  readonly pattern?: string;
  readonly description?: string;
  readonly examples?: readonly unknown[];
  readonly enum?: readonly (string | number | boolean | null)[];
  readonly default?: string | number | boolean;
  readonly readOnly?: boolean;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean | JsonSchema;
  readonly items?: JsonSchema;
  readonly maxItems?: number;
  readonly allOf?: readonly JsonSchema[];
  readonly anyOf?: readonly JsonSchema[];
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly exclusiveMaximum?: number;
  readonly multipleOf?: number;
}
