/**
 * The parts every model's document shares (api-conventions: Reads, Writes, Errors, User prompts,
 * Workflows): the system query options and the workflow and `Prefer` headers as parameters, the
 * error body and the error responses, the prompts a write may answer with.
 */
import type { Content, Header, Parameter, Reference, Response, Responses, Schema } from "./openapi-types.js";

export const parameterRef = (name: CommonParameter): Reference => ({
  $ref: `#/components/parameters/${name}`,
});
export const responseRef = (name: CommonResponse): Reference => ({
  $ref: `#/components/responses/${name}`,
});
export const commonSchemaRef = (name: keyof typeof commonSchemas): Schema => ({
  $ref: `#/components/schemas/${name}`,
});

/** a JSON body of `schema` */
export const json = (schema: Schema): Content => ({ "application/json": { schema } });

const query = (name: string, description: string, schema: Schema): Parameter => ({
  name,
  in: "query",
  description,
  schema,
});

/** the system query options (OData 4.01 §11.2; also accepted without `$` and in any case) */
export const queryOptions = (maxPageSize: number) =>
  ({
    filter: query(
      "$filter",
      "Only the records for which this expression is true, e.g. `Name eq 'x' and contains(Note,'y')`. Paths may run through references and complex values; `any`/`all` over collections. Persisted properties only.",
      { type: "string" },
    ),
    select: query(
      "$select",
      "The properties to return, comma-separated; `*` for every persisted property but collections. Without it a record has its `Guid` only.",
      { type: "string" },
    ),
    expand: query(
      "$expand",
      "References and owned collections to include, with their own options in parentheses: `Lines($select=Name;$top=2)`.",
      { type: "string" },
    ),
    orderby: query(
      "$orderby",
      "Properties or paths to sort by, each `asc` (default) or `desc`, comma-separated; the `Guid` ends every order.",
      { type: "string" },
    ),
    top: query("$top", "At most this many records.", { type: "integer", minimum: 0, maximum: maxPageSize }),
    skip: query("$skip", "Leave out this many records first.", { type: "integer", minimum: 0 }),
    count: query("$count", "`true` adds `@odata.count`: how many records match, before `$top` and `$skip`.", {
      type: "boolean",
    }),
    compute: query(
      "$compute",
      "Values computed per record, named with `as`, then selectable and usable in `$filter` and `$orderby`: `Quantity mul Price as Amount`.",
      { type: "string" },
    ),
    apply: query(
      "$apply",
      "Aggregation: `filter(…)` steps, then `aggregate(… with sum as Total, $count as N)` or `groupby((paths),aggregate(…))`, chained with `/`.",
      { type: "string" },
    ),
  }) satisfies Record<string, Parameter>;

const header = (name: string, description: string, schema: Schema, required = false) =>
  ({ name, in: "header", description, required, schema }) satisfies Parameter;

/** a request with Workflow-Id is a step of that workflow (api-conventions: Workflows) */
export const workflowHeaders = {
  workflowId: header(
    "Workflow-Id",
    "Makes the request a step of this workflow: it reads and writes the workflow's staged state.",
    { type: "string", format: "uuid" },
  ),
  workflowIndex: header("Workflow-Index", "The step's index; required with Workflow-Id (409 when not the next).", {
    type: "integer",
    minimum: 1,
  }),
  // the same two, required: commit and answers are steps by definition
  workflowIdRequired: header(
    "Workflow-Id",
    "The workflow this step belongs to.",
    { type: "string", format: "uuid" },
    true,
  ),
  workflowIndexRequired: header(
    "Workflow-Index",
    "The step's index (`Workflow-Next-Index` of the last answer).",
    { type: "integer", minimum: 1 },
    true,
  ),
} satisfies Record<string, Parameter>;

export const commonParameters = {
  prefer: header(
    "Prefer",
    "`return=minimal` answers 204 without a body, `return=representation` the record with every property unless `$select`/`$expand` say what (each with `Preference-Applied`).",
    {
      type: "string",
      enum: ["return=minimal", "return=representation"],
    },
  ),
  ...workflowHeaders,
};

export type CommonParameter = keyof ReturnType<typeof queryOptions> | keyof typeof commonParameters;

export const commonHeaders = {
  "Workflow-Next-Index": {
    description: "Inside a workflow: the index to send with its next step.",
    schema: { type: "integer", minimum: 1 },
  },
  "WWW-Authenticate": {
    description: "The bearer challenge, naming the protected-resource metadata (RFC 9728).",
    schema: { type: "string" },
  },
  "Retry-After": { description: "Seconds to wait before trying again.", schema: { type: "integer", minimum: 0 } },
} satisfies Record<string, Header>;

const headerRef = (name: keyof typeof commonHeaders): Reference => ({
  $ref: `#/components/headers/${name}`,
});

const prompt: Schema = {
  type: "object",
  required: ["id", "text", "severity"],
  properties: {
    id: { type: "string", format: "uuid" },
    text: { type: "string" },
    severity: { type: "string", enum: ["info", "warning", "error"] },
    default: { type: "string", description: "A question's default choice." },
    choices: {
      type: "array",
      description: "A question's answers; inside a workflow each is answered by a POST to its `href`.",
      items: {
        type: "object",
        required: ["key", "label"],
        properties: {
          key: { type: "string" },
          label: { type: "string" },
          href: { type: "string" },
          method: { type: "string", enum: ["POST"] },
        },
      },
    },
  },
};

const promptEnvelope: Schema = {
  type: "object",
  description: "Messages and questions by the record and property they concern (`{guid}.{property}`).",
  additionalProperties: { type: "array", items: prompt },
};

export const commonSchemas = {
  Error: {
    type: "object",
    required: ["error"],
    properties: {
      error: {
        type: "object",
        required: ["code", "message"],
        properties: {
          code: { type: "string", description: "A stable PascalCase code, e.g. `ValidationError`." },
          message: { type: "string" },
          target: { type: "string", description: "The property, option or header the error is about." },
          details: {
            type: "array",
            items: {
              type: "object",
              required: ["code", "message"],
              properties: { code: { type: "string" }, message: { type: "string" }, target: { type: "string" } },
            },
          },
        },
      },
    },
  },
  Prompts: {
    type: "object",
    description: "What business logic reported: `@userprompts`, or `@workflow.userprompts` inside a workflow.",
    properties: { "@userprompts": promptEnvelope, "@workflow.userprompts": promptEnvelope },
  },
  Message: {
    type: "object",
    required: ["message"],
    properties: { message: { type: "string" }, "@workflow.userprompts": promptEnvelope },
  },
} satisfies Record<string, Schema>;

const errorResponse = (description: string, headers: Record<string, Reference> = {}): Response => ({
  description,
  ...(Object.keys(headers).length > 0 && { headers }),
  content: json(commonSchemaRef("Error")),
});

export const commonResponses = {
  BadRequest: errorResponse("The request is not valid: the error names what is wrong and where."),
  Unauthorized: errorResponse("No valid access token.", { "WWW-Authenticate": headerRef("WWW-Authenticate") }),
  Forbidden: errorResponse("The caller's role, scopes or the tenant's features do not allow this."),
  NotFound: errorResponse("No such record, workflow or question."),
  WorkflowConflict: errorResponse("Workflow-Index is not the workflow's next step.", {
    "Workflow-Next-Index": headerRef("Workflow-Next-Index"),
  }),
  Error: errorResponse(
    "Any other error: 413 (body too large), 415 (not JSON), 429 (too many sign-ins), 503 with Retry-After (database unreachable), 500.",
    { "Retry-After": headerRef("Retry-After") },
  ),
} satisfies Record<string, Response>;

export type CommonResponse = keyof typeof commonResponses;

/** the errors every authenticated operation may answer, plus 404 and 409 where they apply */
export function errorResponses(options: { notFound?: boolean; workflow?: boolean } = {}): Responses {
  return {
    "400": responseRef("BadRequest"),
    "401": responseRef("Unauthorized"),
    "403": responseRef("Forbidden"),
    ...(options.notFound && { "404": responseRef("NotFound") }),
    ...(options.workflow && { "409": responseRef("WorkflowConflict") }),
    default: responseRef("Error"),
  };
}

export const nextIndexHeader = { "Workflow-Next-Index": headerRef("Workflow-Next-Index") };
