/**
 * Write validation: checks a create or update body against an entity definition and returns a
 * fresh, normalized object, or every problem found with one detail per property
 * (api-conventions "Writes": body errors → 400 with a `details` entry per property).
 */
import * as v from "valibot";
import type { ErrorDetail } from "../errors.js";
import { builtInFields } from "../model/entity.js";
import type { AnyEntity, Model } from "../model/model.js";
import { issueCode, type WriteIssueCode } from "./issue-codes.js";
import { type CollectionPlan, entityPlan, type FieldPlan, type ObjectPlan, type ValuePlan } from "./write-plan.js";

export type WriteMode = "create" | "update";

export interface ValidateOptions {
  /** decimals may also be strings (OData `IEEE754Compatible=true` in `Content-Type`) */
  readonly ieee754Compatible?: boolean;
  /**
   * The values were set by server code (a method body, business logic, a seed), not sent by a
   * client: read-only properties may hold values, and a required one must be there even when
   * it is read-only (no one else is left to set it). Every value's own constraints still hold.
   */
  readonly byServer?: boolean;
  /** where the body sits, put in front of every target and message: `Details[2]`; none by default */
  readonly at?: string;
}

export type WriteValidation =
  | { readonly success: true; readonly value: Record<string, unknown> }
  | { readonly success: false; readonly issues: readonly ErrorDetail[] };

/**
 * Validates a write body. On create, required fields must be present and absent fields with a
 * default get it; on update only the given properties are checked and returned. Decimals come
 * back as exact decimal strings, GUIDs lowercased; references stay as given, for natural-key
 * resolution to turn into GUIDs later.
 *
 * @example
 * const result = validateWrite(model, Product, { SKU: "A-1", Cost: 12.5 }, "create");
 * if (!result.success) throw validationError(result.issues);
 * result.value; // { SKU: "A-1", Cost: "12.5", Active: true }
 */
export function validateWrite(
  model: Model,
  entity: AnyEntity,
  body: unknown,
  mode: WriteMode,
  options: ValidateOptions = {},
): WriteValidation {
  if (!isPlainObject(body)) {
    const message = `The body of a ${entity.name} ${mode} must be a JSON object.`;
    return { success: false, issues: [{ code: "InvalidBody" satisfies WriteIssueCode, message }] };
  }
  const walk: Walk = {
    model,
    ieee754: options.ieee754Compatible === true,
    byServer: options.byServer === true,
    issues: [],
  };
  const scope = { mode, path: options.at ?? "", guidWritable: mode === "create" };
  const value = writeObject(walk, entityPlan(model, entity), body, scope);
  return walk.issues.length === 0 ? { success: true, value } : { success: false, issues: walk.issues };
}

interface Walk {
  readonly model: Model;
  readonly ieee754: boolean;
  readonly byServer: boolean;
  readonly issues: ErrorDetail[];
}

/** Where an object sits in the body and how it is written. */
interface Scope {
  readonly mode: WriteMode;
  /** the object's path; "" for the body itself */
  readonly path: string;
  /** on create (client-chosen ids) and in collection items (naming an existing line) */
  readonly guidWritable: boolean;
  /** in a collection item: the reference back to the owner, which the owner sets */
  readonly inverse?: string;
}

const parseConfig = { abortPipeEarly: true } as const; // one detail per property is enough

/**
 * Only own keys are read, and the output gets only the plan's properties, each defined as its
 * own (put), so that no input key, even `__proto__`, can reach an object's prototype.
 */
function writeObject(walk: Walk, plan: ObjectPlan, input: Record<string, unknown>, scope: Scope) {
  const output: Record<string, unknown> = {};
  // every record of a changeset passes here: a property's path is made only for a message or a nested value
  for (const key of Object.keys(input)) {
    const field = plan.fields.get(key);
    if (field === undefined) rejectUnknown(walk, plan, key, join(scope.path, key));
    else if (isWritable(walk, field, key, scope)) {
      put(output, key, writeField(walk, field, input[key], scope.path, key, scope.mode));
    }
  }
  if (scope.mode === "create") completeCreate(walk, plan, input, output, scope);
  return output;
}

/** sets `output[key]` as an own property, whatever the key: `__proto__` too */
function put(output: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(output, key, { value, enumerable: true, writable: true, configurable: true });
  else output[key] = value;
}

function rejectUnknown(walk: Walk, plan: ObjectPlan, key: string, target: string): void {
  if (plan.computed.has(key)) {
    report(walk, "ReadOnlyProperty", target, `${target} is computed by the server and cannot be written.`);
    return;
  }
  const lower = key.toLowerCase();
  const match = [...plan.fields.keys(), ...plan.computed].find((name) => name.toLowerCase() === lower);
  const message =
    match === undefined
      ? `${plan.label} has no property ${JSON.stringify(key)}.`
      : `${plan.label} has no property ${JSON.stringify(key)}; property names are case sensitive (did you mean "${match}"?)`;
  report(walk, "UnknownProperty", target, message);
}

function isWritable(walk: Walk, plan: FieldPlan, key: string, scope: Scope): boolean {
  // the property's path only for a refusal: a writable one needs none
  const refuse = (why: string) => {
    const target = join(scope.path, key);
    report(walk, "ReadOnlyProperty", target, `${target} ${why}`);
    return false;
  };
  if (key === scope.inverse) {
    const owner = plan.field.kind === "reference" ? plan.field.target : "owner";
    return refuse(`is set by the owning ${owner}; leave it out of the item.`);
  }
  if (plan.field === builtInFields.Guid)
    return scope.guidWritable || refuse("is assigned on create and cannot change.");
  return !plan.field.readOnly || walk.byServer || refuse("is read-only.");
}

function writeField(walk: Walk, plan: FieldPlan, value: unknown, path: string, key: string, mode: WriteMode): unknown {
  if (value === null) return writeNull(walk, plan, join(path, key), mode);
  if (plan.kind === "value") return writeValue(walk, plan, value, path, key);
  const target = join(path, key);
  // on update a complex value merges: only its given members are checked and returned
  if (plan.kind === "complex")
    return isPlainObject(value)
      ? writeObject(walk, plan.members, value, { mode, path: target, guidWritable: false })
      : report(walk, "InvalidType", target, `${target} must be an object.`);
  return writeCollection(walk, plan, value, target);
}

function writeNull(walk: Walk, plan: FieldPlan, target: string, mode: WriteMode): unknown {
  switch (plan.kind) {
    case "value":
      // a null Guid would name no record, so it is refused like a required value
      if (plan.field.required || plan.field === builtInFields.Guid) {
        report(walk, "Required", target, `${target} cannot be null.`);
      }
      return null;
    case "complex":
      // null clears every member, which a required member forbids
      if ([...plan.members.fields.values()].some((member) => member.field.required)) {
        report(walk, "Required", target, `${target} cannot be null because it has required members.`);
      }
      return null;
    case "collection":
      // on update null stays null so that save logic can tell "remove all lines" from "no change"
      return mode === "create" ? [] : null;
  }
}

function writeValue(walk: Walk, plan: ValuePlan, value: unknown, path: string, key: string): unknown {
  const result = v.safeParse(walk.ieee754 ? plan.schemas.ieee754 : plan.schemas.json, value, parseConfig);
  if (result.success) return result.output;
  const [issue] = result.issues;
  const target = join(path, key);
  return report(walk, issueCode(issue), target, `${target} ${issue.message}.`);
}

function writeCollection(walk: Walk, plan: CollectionPlan, value: unknown, target: string): unknown {
  const item = plan.field.target;
  if (!Array.isArray(value)) return report(walk, "InvalidType", target, `${target} must be an array of ${item.name}.`);
  const itemPlan = entityPlan(walk.model, item);
  return value.map((element: unknown, index) => {
    const path = `${target}[${index}]`;
    if (!isPlainObject(element)) return report(walk, "InvalidType", path, `${path} must be a ${item.name} object.`);
    // an item with a Guid may name an existing line, so only what it gives is checked
    const mode = Object.hasOwn(element, "Guid") ? "update" : "create";
    return writeObject(walk, itemPlan, element, { mode, path, guidWritable: true, inverse: plan.field.inverse });
  });
}

function completeCreate(walk: Walk, plan: ObjectPlan, input: object, output: Record<string, unknown>, scope: Scope) {
  for (const [name, field] of plan.absentOnCreate) {
    if (Object.hasOwn(input, name) || name === scope.inverse) continue;
    if (field.kind === "value") {
      if (field.default !== undefined) put(output, name, field.default.value);
      // a read-only field cannot come from the client, so the server must set it
      else if (field.field.required && (walk.byServer || !field.field.readOnly)) {
        const target = join(scope.path, name);
        report(walk, "Required", target, `${target} is required.`);
      }
    } else if (field.kind === "complex") {
      // an absent complex value still gets its members' defaults and needs its required members
      const path = join(scope.path, name);
      const value = writeObject(walk, field.members, {}, { mode: "create", path, guidWritable: false });
      if (Object.keys(value).length > 0) put(output, name, value);
    }
  }
}

function report(walk: Walk, code: WriteIssueCode, target: string, message: string): undefined {
  walk.issues.push({ code, message, target });
  return undefined;
}

const join = (path: string, key: string) => (path === "" ? key : `${path}.${key}`);

/** JSON objects only: arrays, class instances and boxed values are not bodies. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
