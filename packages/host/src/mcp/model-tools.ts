/**
 * The MCP tools of a model, generated from the entity data model that `$metadata` renders, with
 * no per-entity code: per entity set a query, a read by key or natural key, and a create, update
 * and delete staged in a workflow; per method a call; and the workflow tools (start, answer,
 * commit, close). Input schemas come from the model's fields and the methods' parameters,
 * descriptions from the definitions.
 */
import type { Model } from "@bizdata/core";
import { descriptionOf, type EdmEntitySet, EdmJsonSchemas, type EdmOperation, type JsonSchema } from "@bizdata/odata";
import type { Tool } from "@modelcontextprotocol/server";
import type { EdmLookup } from "./edm-lookup.js";
import { toolSchemaStyle } from "./tool-schema-style.js";

export type EntityToolKind = "query" | "get" | "create" | "update" | "delete";
export type WorkflowStep = "start" | "answer" | "commit" | "close";
export type MethodReturns = "none" | "scalar" | "entity" | "collection";

/** what a tool does, for the runner and the permission filter */
export type ToolAction =
  | { readonly kind: EntityToolKind; readonly entitySet: string }
  | {
      readonly kind: "call";
      readonly entity: string;
      readonly method: string;
      readonly type: "read" | "modify";
      readonly isStatic: boolean;
      readonly returns: MethodReturns;
    }
  | { readonly kind: "workflow"; readonly step: WorkflowStep };

export interface ModelTool {
  readonly tool: Tool;
  readonly action: ToolAction;
}

export interface ToolSettings {
  /** most rows a tool returns */
  readonly rowLimit: number;
}

const text = (description: string): JsonSchema => ({ type: "string", description });

const WORKFLOW_ID = {
  type: "string",
  format: "uuid",
  description:
    "The workflow to work in: the workflowId a change's answer carries. Left out: a new one is started (on a 2025 session, the one it used last).",
};
const READ_IN_WORKFLOW = {
  ...WORKFLOW_ID,
  description: "Read the staged state of this workflow instead of the saved data.",
};

const OPTIONS = {
  select: text(
    "$select: the properties to return, comma-separated (Guid always comes back; nothing else unless named).",
  ),
  expand: text(
    "$expand: references and collections to include, each with its own options in parentheses separated by ';', e.g. Lines($select=Quantity;$expand=Item($select=Name)).",
  ),
  filter: text(
    "$filter: an OData boolean expression over persisted properties (eq ne lt le gt ge and or not in, contains, startswith, any/all); paths run through references and complex values, e.g. Customer/Address/City eq 'Oslo'.",
  ),
  orderby: text("$orderby: properties or paths, each optionally followed by asc or desc, comma-separated."),
  apply: text(
    "$apply: aggregation, e.g. filter(Status eq 'Open')/groupby((Customer/Id),aggregate(Total with sum as Sum,$count as Orders)). Cannot be combined with filter, select or expand.",
  ),
  compute: text("$compute: computed aliases (expression as Alias), usable in select, filter and orderby."),
  count: { type: "boolean", description: "$count: also return the number of matching records (before top and skip)." },
  skip: { type: "integer", minimum: 0, description: "$skip: records to skip (paging)." },
} as const;

// the schemas are JSON through and through; the SDK types a tool's input schema as JSON values
const object = (properties: Record<string, JsonSchema>, required: readonly string[] = []): Tool["inputSchema"] => ({
  type: "object",
  properties: properties as NonNullable<Tool["inputSchema"]["properties"]>,
  ...(required.length > 0 && { required: [...required] }),
  additionalProperties: false,
});

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
// a staged change reaches the saved data only at commit, and closing the workflow discards it
const STAGED = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

/** the tool that calls a method */
export const methodToolName = (entity: string, method: string): string => `call_${entity}_${method}`;

/** `call_{Entity}_{Method}`, `query_{EntitySet}`, …: tool names are unique per model (checked) */
export const toolName = (action: ToolAction): string => {
  switch (action.kind) {
    case "call":
      return methodToolName(action.entity, action.method);
    case "workflow":
      return `workflow_${action.step}`;
    default:
      return `${action.kind}_${action.entitySet}`;
  }
};

export function modelTools(model: Model, lookup: EdmLookup, settings: ToolSettings): ModelTool[] {
  const schemas = new EdmJsonSchemas(lookup.edm.schema, toolSchemaStyle(model));
  const top = {
    type: "integer",
    minimum: 1,
    maximum: settings.rowLimit,
    description: `$top: most records to return (at most ${settings.rowLimit}, the default).`,
  };
  const tools = [
    ...lookup.entitySets.flatMap((set) => entityTools(model, lookup, schemas, set, top)),
    ...lookup.methods.map((op) => methodTool(model, lookup, schemas, op, top)),
    ...workflowTools(),
  ];
  const seen = new Map<string, ModelTool>();
  for (const t of tools) {
    const other = seen.get(t.tool.name);
    if (other !== undefined) {
      throw new Error(`Two MCP tools would be named ${t.tool.name}: rename an entity or a method of the model.`);
    }
    seen.set(t.tool.name, t);
  }
  return tools;
}

function entityTools(
  model: Model,
  lookup: EdmLookup,
  schemas: EdmJsonSchemas,
  set: EdmEntitySet,
  top: JsonSchema,
): ModelTool[] {
  const name = set.name;
  const type = lookup.entityType(set.entityType);
  const about = descriptionOf(type.annotations);
  const entity = model.entity(name);
  const naturalKey = entity?.naturalKey.property ?? "Guid";
  const virtual = entity?.storage !== undefined;
  const keyText = `The ${name}'s Guid${naturalKey === "Guid" ? "" : ` or its ${naturalKey} (natural key)`}.`;
  const key = text(keyText);
  const intro = `${name}${about === undefined ? "" : ` (${about})`}`;
  const stored = virtual
    ? ` ${name} is virtual: its records exist only staged in a workflow, and commit turns them into real data.`
    : "";
  const described = ` The resource bizdata://model/${name} lists its properties, types and which can be filtered.`;
  const make = (kind: EntityToolKind, title: string, description: string, inputSchema: Tool["inputSchema"]) => {
    const action = { kind, entitySet: name } as const;
    const writes = kind === "create" || kind === "update" || kind === "delete";
    return {
      action,
      tool: {
        name: toolName(action),
        title,
        description,
        inputSchema,
        annotations: { title, ...(writes ? STAGED : READ_ONLY) },
      },
    };
  };
  const staged =
    " The change is staged in a workflow: business logic runs on the staged state and may report messages or ask questions, and nothing is saved until workflow_commit.";
  return [
    make(
      "query",
      `Query ${name}`,
      `Query ${intro} with OData options; returns { value: rows } with at most ${top.maximum} rows (more: true and nextSkip when there are more).${stored}${described}`,
      object({ ...OPTIONS, top, workflowId: READ_IN_WORKFLOW }),
    ),
    make(
      "get",
      `Read a ${name}`,
      `Read one ${intro} by its Guid${naturalKey === "Guid" ? "" : ` or its natural key ${naturalKey}`}; returns { value: record }.${described}`,
      object({ key, select: OPTIONS.select, expand: OPTIONS.expand, workflowId: READ_IN_WORKFLOW }, ["key"]),
    ),
    make(
      "create",
      `Create a ${name}`,
      `Create a ${intro}. References take the target's Guid or natural key; owned collections are written inline.${staged}${stored}`,
      object({ record: schemas.write(type, "create"), select: OPTIONS.select, workflowId: WORKFLOW_ID }, ["record"]),
    ),
    make(
      "update",
      `Update a ${name}`,
      `Change properties of a ${intro}; give only what changes.${staged}`,
      object({ key, changes: schemas.write(type, "update"), select: OPTIONS.select, workflowId: WORKFLOW_ID }, [
        "key",
        "changes",
      ]),
    ),
    make(
      "delete",
      `Delete a ${name}`,
      `Delete a ${intro} (its owned collection items go with it).${staged}`,
      object({ key, workflowId: WORKFLOW_ID }, ["key"]),
    ),
  ];
}

function methodTool(
  model: Model,
  lookup: EdmLookup,
  schemas: EdmJsonSchemas,
  op: EdmOperation,
  top: JsonSchema,
): ModelTool {
  const binding = op.parameters[0]!;
  const entity = lookup.local(binding.type);
  const declaration = model.entity(entity)?.methods[op.name];
  if (declaration === undefined) throw new Error(`$metadata names ${entity}.${op.name}, which the model lacks.`);
  const returns = declaration.returns.kind;
  const action = {
    kind: "call",
    entity,
    method: op.name,
    type: declaration.type,
    isStatic: binding.collection,
    returns,
  } as const;
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  if (!binding.collection) {
    const naturalKey = model.entity(entity)?.naturalKey.property ?? "Guid";
    properties.key = text(
      `The ${entity} to call it on: its Guid${naturalKey === "Guid" ? "" : ` or its ${naturalKey} (natural key)`}.`,
    );
    required.push("key");
  }
  const parameters = schemas.parameters(op);
  if (parameters !== undefined) {
    properties.parameters = parameters;
    if (parameters.required !== undefined) required.push("parameters");
  }
  if (returns === "entity" || returns === "collection") {
    Object.assign(properties, { select: OPTIONS.select, expand: OPTIONS.expand });
    if (returns === "collection") Object.assign(properties, { filter: OPTIONS.filter, orderby: OPTIONS.orderby, top });
  }
  const reads = declaration.type === "read";
  properties.workflowId = reads ? READ_IN_WORKFLOW : WORKFLOW_ID;
  const title = `${entity}.${op.name}`;
  const what = reads
    ? "Reads only."
    : "Its changes are staged in a workflow and saved only by workflow_commit; it may report messages or ask questions.";
  return {
    action,
    tool: {
      name: toolName(action),
      title,
      description: `${descriptionOf(op.annotations) ?? title} (${binding.collection ? `a method of the ${entity} set` : `a method of one ${entity}`}). ${what}`,
      inputSchema: object(properties, required),
      annotations: { title, ...(reads ? READ_ONLY : STAGED) },
    },
  };
}

function workflowTools(): ModelTool[] {
  const workflowId = {
    ...WORKFLOW_ID,
    description:
      "The workflow: the workflowId a change's answer carries (on a 2025 session, left out: the one it used last).",
  };
  const make = (step: WorkflowStep, title: string, description: string, schema: Tool["inputSchema"], hints: object) => {
    const action = { kind: "workflow", step } as const;
    return {
      action,
      tool: { name: toolName(action), title, description, inputSchema: schema, annotations: { title, ...hints } },
    };
  };
  return [
    make(
      "start",
      "Start a workflow",
      "Start a workflow: creates, updates, deletes and method calls are staged in it until workflow_commit. The write tools start one by themselves when there is none; start one to begin a separate unit of work.",
      object({ stagingKey: text("A tag to find the workflow again by (optional).") }),
      STAGED,
    ),
    make(
      "answer",
      "Answer a question",
      "Answer a question that business logic asked in a workflow, with the key of one of its choices; the change it belongs to proceeds per the answer.",
      object(
        {
          promptId: { type: "string", format: "uuid", description: "The question's promptId." },
          choice: text("The key of the chosen answer."),
          workflowId,
        },
        ["promptId", "choice"],
      ),
      STAGED,
    ),
    make(
      "commit",
      "Commit a workflow",
      "Save everything staged in the workflow as one transaction. Returns status saved, questionPending (answer the questions, then commit again) or rejected (fix the data, then commit again). The workflow stays open.",
      object({ workflowId }),
      { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    ),
    make(
      "close",
      "Close a workflow",
      "Close the workflow and discard whatever it has staged and not committed.",
      object({ workflowId }),
      { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    ),
  ];
}
