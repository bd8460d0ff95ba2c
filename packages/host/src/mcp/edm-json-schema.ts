/**
 * JSON Schemas of what a client writes, from the entity data model that `$metadata` renders: a
 * record to create, the changes of an update, a method's parameters. Computed properties are
 * left out, references are strings (the target's Guid or natural key, spec 4.3), owned
 * collections are arrays of their items (written inline), complex values are objects. The
 * schemas say what the API accepts; the API itself still checks every value.
 */
import type { Model } from "@bizdata/core";
import type { EdmNavigationProperty, EdmOperation, EdmStructure, EdmTypeRef } from "@bizdata/odata";
import {
  DURATION_SCHEMA,
  descriptionOf,
  isComputed,
  isImmutable,
  optionalParameterOf,
  TIME_OF_DAY_SCHEMA,
} from "@bizdata/odata";
import type { EdmLookup } from "./edm-lookup.js";

export type JsonSchema = { readonly [key: string]: unknown };

/** create: every required property; update: only what changes */
export type WriteMode = "create" | "update";

const INT32 = { minimum: -(2 ** 31), maximum: 2 ** 31 - 1 };

const PRIMITIVES: Readonly<Record<string, JsonSchema>> = {
  "Edm.String": { type: "string" },
  "Edm.Int32": { type: "integer", ...INT32 },
  "Edm.Decimal": { type: "number" },
  "Edm.Boolean": { type: "boolean" },
  "Edm.Date": { type: "string", format: "date" },
  "Edm.DateTimeOffset": { type: "string", format: "date-time" },
  "Edm.Guid": { type: "string", format: "uuid" },
  "Edm.TimeOfDay": TIME_OF_DAY_SCHEMA,
  "Edm.Duration": DURATION_SCHEMA,
};

/** the schema that also admits null (a nullable property may be cleared) */
function orNull(schema: JsonSchema): JsonSchema {
  const { type, enum: values } = schema as { type?: string; enum?: readonly unknown[] };
  return {
    ...schema,
    ...(type !== undefined && { type: [type, "null"] }),
    ...(values !== undefined && { enum: [...values, null] }),
  };
}

const described = (schema: JsonSchema, description: string | undefined): JsonSchema =>
  description === undefined ? schema : { ...schema, description };

export class EdmJsonSchemas {
  constructor(
    private readonly lookup: EdmLookup,
    private readonly model: Model,
  ) {}

  /** an entity (or complex) type as the object a client writes */
  write(structure: EdmStructure, mode: WriteMode, options: { item?: boolean; inverse?: string } = {}): JsonSchema {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const p of structure.properties) {
      if (isComputed(p.annotations)) continue;
      const immutable = isImmutable(p.annotations);
      // the key is given on create (or assigned); an item of a collection is matched by it on update
      if (immutable && mode === "update" && !options.item) continue;
      properties[p.name] = described(this.value(p, mode), descriptionOf(p.annotations));
      if (mode === "create" && !p.nullable && p.defaultValue === undefined && !immutable) required.push(p.name);
    }
    for (const n of structure.navigation) {
      if (n.name === options.inverse) continue; // set by the service from the owner
      properties[n.name] = this.#navigation(n, mode);
      if (mode === "create" && !n.collection && !n.nullable) required.push(n.name);
    }
    return {
      type: "object",
      ...(descriptionOf(structure.annotations) !== undefined && { description: descriptionOf(structure.annotations) }),
      properties,
      ...(required.length > 0 && { required }),
      additionalProperties: false,
    };
  }

  /** a method's parameters as one object; undefined when it takes none */
  parameters(operation: EdmOperation): JsonSchema | undefined {
    const params = operation.parameters.slice(operation.bound ? 1 : 0);
    if (params.length === 0) return undefined;
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const p of params) {
      const optional = optionalParameterOf(p.annotations);
      const schema = described(this.value(p, "create"), descriptionOf(p.annotations));
      const fallback = optional.defaultValue;
      properties[p.name] = fallback === undefined ? schema : { ...schema, default: typed(schema, fallback) };
      // spec 4.8: required is a non-nullable parameter without a default
      if (!optional.optional) required.push(p.name);
    }
    return { type: "object", properties, ...(required.length > 0 && { required }), additionalProperties: false };
  }

  /** one value of a type: a primitive, an enum member, a complex object, or a collection of them */
  value(ref: EdmTypeRef, mode: WriteMode): JsonSchema {
    const single = this.#single(ref, mode);
    if (ref.collection) return { type: "array", items: ref.nullable ? orNull(single) : single };
    return ref.nullable ? orNull(single) : single;
  }

  #single(ref: EdmTypeRef, mode: WriteMode): JsonSchema {
    const primitive = PRIMITIVES[ref.type];
    if (primitive !== undefined)
      return ref.maxLength === undefined ? primitive : { ...primitive, maxLength: ref.maxLength };
    const type = this.lookup.type(ref.type);
    switch (type?.kind) {
      case "enumType":
        return { type: "string", enum: type.members };
      case "complexType":
        return this.write(type, mode);
      default:
        throw new Error(`No JSON Schema for the type ${ref.type}.`);
    }
  }

  #navigation(n: EdmNavigationProperty, mode: WriteMode): JsonSchema {
    const target = this.lookup.local(n.type);
    const description = descriptionOf(n.annotations);
    if (n.collection) {
      const items = this.write(this.lookup.entityType(n.type), mode, {
        item: true,
        ...(n.partner !== undefined && { inverse: n.partner }),
      });
      const how = `The ${target} items, written inline${mode === "update" ? ": the whole list (an item with its Guid is changed, one without is added, one left out is removed)" : ""}.`;
      return { type: "array", items, description: description === undefined ? how : `${description} ${how}` };
    }
    const key = this.model.entity(target)?.naturalKey.property ?? "Guid";
    const how = `A ${target}: its Guid${key === "Guid" ? "" : ` or its ${key}`}.`;
    const schema: JsonSchema = {
      type: "string",
      description: description === undefined ? how : `${description} ${how}`,
    };
    return n.nullable ? orNull(schema) : schema;
  }
}

/** a CSDL default value (always text) as the JSON value of its schema */
function typed(schema: JsonSchema, text: string): unknown {
  const type = [schema.type].flat();
  if (type.includes("number") || type.includes("integer")) return Number(text);
  if (type.includes("boolean")) return text === "true";
  return text;
}
