/**
 * A prompt per method the caller may call, named as its tool (`call_<Entity>_<Method>`): its
 * arguments are the record's `key` (instance methods) and the method's parameters, so that a
 * person fills them in with completion (natural keys, enum members, true or false:
 * mcp-completions.ts) and the agent gets the tool call to make, its arguments typed as the tool's
 * input schema takes them. Prompt arguments are strings; a number or a boolean that is not one is
 * refused here, the rest by the tool when it is called.
 */
import type { Model, ScalarField } from "@bizdata/core";
import { type GetPromptResult, type Prompt, ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import type { ModelTool, ToolAction } from "./model-tools.js";
import { naturalKeyOf } from "./record-keys.js";

type CallAction = Extract<ToolAction, { kind: "call" }>;

const isCall = (t: ModelTool): t is ModelTool & { action: CallAction } => t.action.kind === "call";

/** the method's parameters as its declaration has them */
export const parametersOf = (model: Model, action: CallAction): Readonly<Record<string, ScalarField>> =>
  model.entity(action.entity)?.methods[action.method]?.params ?? {};

/** spec 4.8 rules 1-2: a parameter is required when non-nullable without a default */
const isRequired = (field: ScalarField) => field.required && !("default" in field && field.default !== undefined);

const describe = (name: string, field: ScalarField): string =>
  field.description ??
  (field.kind === "enum" ? `${name}: one of ${field.values.join(", ")}` : `${name} (${field.kind})`);

export function methodPrompts(model: Model, tools: readonly ModelTool[]): Prompt[] {
  return tools.filter(isCall).map(({ tool, action }) => ({
    name: tool.name,
    title: tool.title ?? tool.name,
    description: `Call ${action.entity}.${action.method}: ${tool.description}`,
    arguments: [
      ...(action.isStatic
        ? []
        : [
            {
              name: "key",
              description: `The ${action.entity}: its Guid or its ${naturalKeyOf(model, action.entity)}.`,
              required: true,
            },
          ]),
      ...Object.entries(parametersOf(model, action)).map(([name, field]) => ({
        name,
        description: describe(name, field),
        required: isRequired(field),
      })),
    ],
  }));
}

const invalid = (message: string) => new ProtocolError(ProtocolErrorCode.InvalidParams, message);

/** a prompt argument as the tool's parameter takes it */
function typed(prompt: string, name: string, field: ScalarField, value: string): unknown {
  switch (field.kind) {
    case "integer":
    case "decimal": {
      const number = Number(value);
      if (value.trim() === "" || !Number.isFinite(number))
        throw invalid(`${prompt}: ${name} must be a number, not "${value}".`);
      return number;
    }
    case "boolean":
      if (value !== "true" && value !== "false")
        throw invalid(`${prompt}: ${name} must be true or false, not "${value}".`);
      return value === "true";
    default:
      return value;
  }
}

/** the message of the method's prompt: the tool call with these arguments */
export function methodPrompt(
  model: Model,
  { tool, action }: ModelTool & { action: CallAction },
  given: Readonly<Record<string, string>>,
): GetPromptResult {
  const parameters = parametersOf(model, action);
  const known = new Set([...(action.isStatic ? [] : ["key"]), ...Object.keys(parameters)]);
  const unknown = Object.keys(given).filter((name) => !known.has(name));
  if (unknown.length > 0) throw invalid(`${tool.name} has no argument ${unknown.join(", ")}.`);
  if (!action.isStatic && !given.key) throw invalid(`${tool.name} needs the argument key.`);
  const values: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(parameters)) {
    const value = given[name];
    if (value === undefined || value === "") {
      if (isRequired(field)) throw invalid(`${tool.name} needs the argument ${name}.`);
      continue;
    }
    values[name] = typed(tool.name, name, field, value);
  }
  const args = {
    ...(!action.isStatic && { key: given.key }),
    ...(Object.keys(values).length > 0 && { parameters: values }),
  };
  return {
    description: `${action.entity}.${action.method}`,
    messages: [
      {
        role: "user",
        content: { type: "text", text: `Call the tool ${tool.name} with these arguments: ${JSON.stringify(args)}` },
      },
    ],
  };
}

export const methodToolOf = (tools: ReadonlyMap<string, ModelTool>, name: string) => {
  const tool = tools.get(name);
  return tool !== undefined && isCall(tool) ? tool : undefined;
};
