/**
 * JSON Schemas of the entity data model that `$metadata` renders, for the OpenAPI document's
 * `components.schemas` and the MCP tools' input schemas: an Edm type's facets as JSON Schema
 * keywords (MaxLength as `maxLength`; Precision and Scale of a decimal as `multipleOf` and an
 * exclusive bound; Nullable as `null` among the types; enum types as `enum`; Core.Computed as
 * `readOnly`). Model types keep their qualified names (`bizdata.Product`), so they never meet the
 * OpenAPI document's own schemas.
 *
 * Each entity type has three shapes, as OData's JSON format has them: the record as read (no
 * property is required, since `$select` chooses what comes), the body of a create (required
 * properties, no computed ones, references as Guid or natural key) and the body of an update
 * (nothing required). An owned item is written with its owner, which sets the item's reference
 * back to it, so neither write shape has that reference; an update names the item by its Guid. A
 * complex type has the read shape and one write component for both writes; written out, a
 * create's complex value requires its required members, as the service does.
 *
 * The two uses differ only where their readers do, and say so in an `EdmJsonSchemaStyle`.
 */

import type {
  EdmComplexType,
  EdmEntityType,
  EdmEnumType,
  EdmNavigationProperty,
  EdmOperation,
  EdmParameter,
  EdmProperty,
  EdmSchema,
  EdmStructure,
  EdmTypeRef,
} from "../metadata/edm.js";
import {
  alternateKeysOf,
  descriptionOf,
  isComputed,
  isImmutable,
  optionalParameterOf,
} from "../metadata/edm-annotations.js";
import type { JsonSchema } from "./json-schema.js";
import { DURATION_SCHEMA, TIME_OF_DAY_SCHEMA } from "./temporal-schemas.js";

/** the three shapes of an entity type (a complex type's read and write shapes) */
export type Shape = "read" | "create" | "update";
export type WriteShape = Exclude<Shape, "read">;

/** the sentences a schema adds to the model's own descriptions, worded for the readers of each use */
export interface SchemaNotes {
  /** how a reference names its target (its unqualified name), given the target's alternate keys */
  readonly reference: (target: string, keys: readonly string[]) => string;
  /** how an owned collection's items are written; none when left out */
  readonly collection?: (target: string, shape: WriteShape) => string;
  /** what an entity type's alternate keys mean; none when left out */
  readonly alternateKeys?: (keys: readonly string[]) => string;
}

export interface EdmJsonSchemaStyle {
  /**
   * `components`: a model type is a `$ref` to its schema in `components.schemas` (named by
   * `schemaName`), so the document says each type once. `inline`: written out where it is used,
   * for a schema that must stand alone, as an MCP tool's input does; a reference is then read as
   * its key alone, since the expanded target may refer back.
   */
  readonly types: "components" | "inline";
  /**
   * `formats`: OpenAPI's format registry (`int32`, `decimal` with its precision and scale as
   * `multipleOf` and exclusive bounds). `ranges`: only keywords any validator checks exactly:
   * Int32 as its range, a decimal as any number (in binary floating point 1.13 is no multiple of
   * 0.01, so `multipleOf` would refuse what the service accepts).
   */
  readonly numbers: "formats" | "ranges";
  /** whether an object a client writes refuses properties it does not declare (`additionalProperties`) */
  readonly closed: boolean;
  /** a property's default value as `default` */
  readonly propertyDefaults: boolean;
  /** an optional parameter's default value as `default`, or as a sentence of its description */
  readonly parameterDefaults: "keyword" | "description";
  readonly notes: SchemaNotes;
}

/** the component name of a model type in one shape: `bizdata.Product`, `bizdata.Product-create` */
export const schemaName = (qualifiedType: string, shape: Shape = "read"): string =>
  shape === "read" ? qualifiedType : `${qualifiedType}-${shape}`;

export const schemaRef = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** `null` as one more choice: among the types and enum values, or through `anyOf` for a `$ref` */
function orNull(schema: JsonSchema): JsonSchema {
  const { type, enum: values } = schema;
  if ("$ref" in schema || type === undefined) return { anyOf: [schema, { type: "null" }] };
  return { ...schema, type: [type, "null"].flat(), ...(values !== undefined && { enum: [...values, null] }) };
}

/**
 * `schema` with annotations beside it; a `$ref` is wrapped in `allOf`, since many tools still
 * ignore what stands beside a `$ref`
 */
function annotated(schema: JsonSchema, extra: JsonSchema): JsonSchema {
  if (Object.keys(extra).length === 0) return schema;
  return "$ref" in schema ? { allOf: [schema], ...extra } : { ...schema, ...extra };
}

/** the sentences that are given, as one description */
const sentences = (...parts: (string | undefined)[]): string | undefined => {
  const given = parts.filter((p) => p !== undefined);
  return given.length === 0 ? undefined : given.join(" ");
};

/** 10^exponent as the JSON number it is (exact for the exponents decimals have) */
const powerOfTen = (exponent: number) => Number(`1e${exponent}`);

const INT32_RANGE = { minimum: -(2 ** 31), maximum: 2 ** 31 - 1 };

/** the schema of one value of a primitive Edm type with its facets */
function primitiveSchema(t: EdmTypeRef, numbers: EdmJsonSchemaStyle["numbers"]): JsonSchema | undefined {
  switch (t.type) {
    case "Edm.String":
      return { type: "string", ...(t.maxLength !== undefined && { maxLength: t.maxLength }) };
    case "Edm.Int32":
      return numbers === "formats" ? { type: "integer", format: "int32" } : { type: "integer", ...INT32_RANGE };
    case "Edm.Decimal": {
      // a JSON number unless the client asks for IEEE754Compatible=true, which makes it a string
      if (numbers === "ranges") return { type: "number" };
      const scale = t.scale ?? 0;
      const digits = t.precision === undefined ? undefined : t.precision - scale;
      return {
        type: "number",
        format: "decimal",
        ...(t.scale !== undefined && { multipleOf: powerOfTen(-scale) }),
        // |value| < 10^(precision - scale): a power of ten is exact in JSON, a 9…9 bound is not
        ...(digits !== undefined && { exclusiveMinimum: -powerOfTen(digits), exclusiveMaximum: powerOfTen(digits) }),
      };
    }
    case "Edm.Boolean":
      return { type: "boolean" };
    case "Edm.Date":
      return { type: "string", format: "date" };
    case "Edm.DateTimeOffset":
      return { type: "string", format: "date-time" };
    case "Edm.Guid":
      return { type: "string", format: "uuid" };
    case "Edm.TimeOfDay":
      return { ...TIME_OF_DAY_SCHEMA };
    case "Edm.Duration":
      return { ...DURATION_SCHEMA };
    default:
      return undefined;
  }
}

/** a CSDL default value (always text) as the JSON value of its schema */
function typed(schema: JsonSchema, text: string): string | number | boolean {
  const type = [schema.type].flat();
  if (type.includes("number") || type.includes("integer")) return Number(text);
  if (type.includes("boolean")) return text === "true";
  return text;
}

/**
 * @example
 * const schemas = new EdmJsonSchemas(buildEdm(model).schema, style);
 * schemas.write(productType, "create"); // the body of a create
 */
export class EdmJsonSchemas {
  readonly #types: ReadonlyMap<string, EdmEntityType | EdmComplexType | EdmEnumType>;
  readonly #namespace: string;
  /** per type that is an owned collection's item: its references back to the owner, which the owner sets */
  readonly #inverses = new Map<string, Set<string>>();

  constructor(
    schema: EdmSchema,
    private readonly style: EdmJsonSchemaStyle,
  ) {
    // names inside the document are qualified by the schema's alias when it has one (schema-names.ts)
    this.#namespace = schema.alias ?? schema.namespace;
    this.#types = new Map(schema.types.map((t) => [`${this.#namespace}.${t.name}`, t]));
    for (const t of schema.types) {
      if (t.kind === "enumType") continue;
      for (const n of t.navigation) {
        // a collection is an owned one, its items deleted with the owner (edm-structured-types.ts)
        if (n.onDelete !== "Cascade") continue;
        const inverses = this.#inverses.get(n.type) ?? new Set();
        if (n.partner !== undefined) inverses.add(n.partner);
        this.#inverses.set(n.type, inverses);
      }
    }
  }

  isEntityType = (qualified: string): boolean => this.#types.get(qualified)?.kind === "entityType";

  /** whether records of the type are items of an owned collection, with references back to their owner */
  isItem = (qualified: string): boolean => this.#inverses.has(qualified);

  /** a value of `t` (one item when `t` is a collection): a primitive with its facets, or a model type */
  valueSchema(t: EdmTypeRef, shape: Shape = "read"): JsonSchema {
    const primitive = primitiveSchema(t, this.style.numbers);
    if (primitive !== undefined) return primitive;
    const type = this.#types.get(t.type);
    if (type === undefined) throw new Error(`No JSON Schema for the Edm type ${t.type}: it is not in the schema.`);
    if (type.kind === "enumType") return this.style.types === "inline" ? enumSchema(type) : schemaRef(t.type);
    if (this.style.types === "inline") return this.#structured(type, shape);
    // a complex type's one write component serves a create and an update alike
    return schemaRef(schemaName(t.type, type.kind === "complexType" && shape === "create" ? "update" : shape));
  }

  /** the schema of a property, parameter or return type, collections and nulls included */
  typeSchema(t: EdmTypeRef, shape: Shape = "read"): JsonSchema {
    const value = this.valueSchema(t, shape);
    if (t.collection) return { type: "array", items: t.nullable ? orNull(value) : value };
    return t.nullable ? orNull(value) : value;
  }

  /** an entity or complex type as a client reads it */
  read(type: EdmStructure): JsonSchema {
    return this.#structured(type, "read");
  }

  /**
   * an entity or complex type as the body of a create or the changes of an update at its own
   * entity set: an owned item's names its owner there (required on create), which inside its
   * owner's body the owner sets
   */
  write(type: EdmStructure, shape: WriteShape): JsonSchema {
    return this.#structured(type, shape, true);
  }

  /** a method's parameters (after the binding parameter) as one object; undefined when it takes none */
  parameters(operation: EdmOperation): JsonSchema | undefined {
    const params = operation.parameters.slice(operation.bound ? 1 : 0);
    if (params.length === 0) return undefined;
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const p of params) {
      const { optional, defaultValue } = optionalParameterOf(p.annotations);
      const schema = this.typeSchema(p, "create");
      const description = this.parameterDescription(p);
      const keyword = this.style.parameterDefaults === "keyword" && defaultValue !== undefined;
      properties[p.name] = annotated(schema, {
        ...(description !== undefined && { description }),
        ...(keyword && { default: typed(schema, defaultValue) }),
      });
      // spec 4.8: required is a non-nullable parameter without a default
      if (!optional) required.push(p.name);
    }
    return { type: "object", properties, ...(required.length > 0 && { required }), additionalProperties: false };
  }

  /** what a parameter's documentation says: its Core.Description, and the value it takes when left out */
  parameterDescription(p: EdmParameter): string | undefined {
    const { optional, defaultValue } = optionalParameterOf(p.annotations);
    const described = this.style.parameterDefaults === "description" && optional && defaultValue !== undefined;
    return sentences(descriptionOf(p.annotations), described ? `Default: ${defaultValue}.` : undefined);
  }

  /** every model type in every shape it has, by component name */
  components(): Record<string, JsonSchema> {
    const schemas: Record<string, JsonSchema> = {};
    for (const [qualified, type] of this.#types) {
      switch (type.kind) {
        case "enumType":
          schemas[qualified] = enumSchema(type);
          break;
        case "entityType":
          for (const shape of ["read", "create", "update"] as const)
            schemas[schemaName(qualified, shape)] = this.#structured(type, shape);
          break;
        case "complexType":
          schemas[qualified] = this.#structured(type, "read");
          schemas[schemaName(qualified, "update")] = this.#structured(type, "update");
          break;
      }
    }
    return schemas;
  }

  #structured(type: EdmStructure, shape: Shape, own = false): JsonSchema {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    const entity = "key" in type;
    const qualified = `${this.#namespace}.${type.name}`;
    const inverses = own ? undefined : this.#inverses.get(qualified);
    for (const p of type.properties) {
      const computed = isComputed(p.annotations);
      if (shape !== "read" && computed) continue;
      // the key is given on create or assigned; an update names an owned item by it, never the record
      if (shape === "update" && entity && isImmutable(p.annotations) && inverses === undefined) continue;
      properties[p.name] = this.#property(p, shape, computed);
      if (shape === "create" && !p.nullable && p.defaultValue === undefined && !isImmutable(p.annotations))
        required.push(p.name);
    }
    for (const n of type.navigation) {
      // the owner sets its items' references back to it, and refuses them in an item's body
      if (shape !== "read" && inverses?.has(n.name)) continue;
      properties[n.name] = this.#navigation(n, shape);
      if (shape === "create" && !n.collection && !n.nullable) required.push(n.name);
    }
    const keys = alternateKeysOf(type.annotations);
    const { alternateKeys } = this.style.notes;
    const notes = [
      descriptionOf(type.annotations),
      keys.length === 0 || alternateKeys === undefined ? undefined : alternateKeys(keys),
    ].filter((note) => note !== undefined);
    return {
      type: "object",
      ...(notes.length > 0 && { description: notes.join("\n\n") }),
      properties,
      ...(required.length > 0 && { required }),
      ...(shape !== "read" && this.style.closed && { additionalProperties: false }),
    };
  }

  #property(p: EdmProperty, shape: Shape, computed: boolean): JsonSchema {
    const description = descriptionOf(p.annotations);
    return annotated(this.typeSchema(p, shape), {
      ...(description !== undefined && { description }),
      ...(this.style.propertyDefaults && p.defaultValue !== undefined && { default: p.defaultValue }),
      ...(computed && { readOnly: true }),
    });
  }

  /**
   * A reference reads as the target's Guid (`$select`) or the target itself (`$expand`) and is
   * written as the target's Guid or natural key; an owned collection reads as an array of items
   * (`$expand`) and is written inline, as the new list of items.
   */
  #navigation(n: EdmNavigationProperty, shape: Shape): JsonSchema {
    const description = descriptionOf(n.annotations);
    const name = n.type.slice(this.#namespace.length + 1);
    if (n.collection) {
      const items = this.valueSchema({ type: n.type, collection: false, nullable: false }, shape);
      const how = shape === "read" ? undefined : this.style.notes.collection?.(name, shape);
      const text = sentences(description, how);
      return { type: "array", items, ...(text !== undefined && { description: text }) };
    }
    const target = this.#types.get(n.type);
    const keys = target?.kind === "entityType" ? alternateKeysOf(target.annotations) : [];
    const key = this.style.notes.reference(name, keys);
    // written out, the expanded target could hold its referrer again (Order → Line → Order) without end
    if (shape === "read" && this.style.types === "components") {
      const value = { anyOf: [{ type: "string", description: key }, this.valueSchema(n)] };
      return annotated(n.nullable ? orNull(value) : value, description === undefined ? {} : { description });
    }
    const value = { type: "string", description: sentences(description, key)! };
    return n.nullable ? orNull(value) : value;
  }
}

const enumSchema = (type: EdmEnumType): JsonSchema => ({ type: "string", enum: [...type.members] });
