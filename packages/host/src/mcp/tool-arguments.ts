/**
 * A tool call's arguments checked against the input schema the tool published, before anything
 * runs: the schema is the contract a client reads, so it is the one enforced. Every problem is
 * named with where it is (`record.Details.0.Quantity must be number`), so an agent can fix its
 * call; the values themselves are checked again by the API.
 */
import { Ajv, type ErrorObject } from "ajv";
import addFormatsModule from "ajv-formats";

// ajv-formats is CommonJS: its default export arrives as the module object under NodeNext
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);

export type ArgumentCheck = (args: unknown) => string | undefined;

/** a check of arguments against `schema`: the problems as one sentence, or undefined when there are none */
export function argumentCheck(schema: object): ArgumentCheck {
  const validate = ajv.compile(schema);
  return (args) => (validate(args) ? undefined : (validate.errors ?? []).map(problem).join("; "));
}

function problem(e: ErrorObject): string {
  const at = e.instancePath === "" ? "The arguments" : e.instancePath.slice(1).replaceAll("/", ".");
  switch (e.keyword) {
    case "additionalProperties":
      return `${at} has no property "${e.params.additionalProperty}"`;
    case "required":
      return `${at} need${at === "The arguments" ? "" : "s"} "${e.params.missingProperty}"`;
    case "enum":
      return `${at} must be one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    default:
      return `${at} ${e.message}`;
  }
}
