/**
 * The JSON Schemas of the OpenAPI document (`components.schemas`), from the same entity data
 * model `$metadata` renders: an Edm type's facets as JSON Schema keywords (MaxLength as
 * `maxLength`; Precision and Scale of a decimal as `multipleOf` and an exclusive bound; Nullable
 * as `null` among the types; enum types as `enum`; Core.Computed as `readOnly`). Model types keep
 * their qualified names (`bizdata.Product`), so they never meet the document's own schemas.
 *
 * Each entity type has three shapes, as OData's JSON format has them: the record as read (no
 * property is required, since `$select` chooses what comes), the body of a create (required
 * properties, no computed ones, references as Guid or natural key) and the body of an update
 * (nothing required). A complex type has the read shape and one write shape.
 */

import type {
  EdmComplexType,
  EdmEntityType,
  EdmEnumType,
  EdmNavigationProperty,
  EdmProperty,
  EdmSchema,
  EdmStructure,
  EdmTypeRef,
} from "../metadata/edm.js";
import { alternateKeysOf, descriptionOf, isComputed, isImmutable } from "../metadata/edm-annotations.js";
import type { Schema } from "./openapi-types.js";
import { DURATION_SCHEMA, TIME_OF_DAY_SCHEMA } from "./temporal-schemas.js";

/** the three shapes of an entity type, the two of a complex type (`update` is its write shape) */
export type Shape = "read" | "create" | "update";

/** the component name of a model type in one shape: `bizdata.Product`, `bizdata.Product-create` */
export const schemaName = (qualifiedType: string, shape: Shape = "read"): string =>
  shape === "read" ? qualifiedType : `${qualifiedType}-${shape}`;

export const schemaRef = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

/** `null` as one more choice; a `$ref` takes it through `anyOf` */
function orNull(schema: Schema): Schema {
  if ("$ref" in schema) return { anyOf: [schema, { type: "null" }] };
  const type = schema.type;
  if (type === undefined) return { anyOf: [schema, { type: "null" }] };
  return { ...schema, type: [...(Array.isArray(type) ? type : [type]), "null"] } as Schema;
}

/**
 * `schema` with annotations beside it; a `$ref` is wrapped in `allOf`, since many tools still
 * ignore what stands beside a `$ref`
 */
export function annotated(schema: Schema, extra: Schema): Schema {
  if (Object.keys(extra).length === 0) return schema;
  return "$ref" in schema ? { allOf: [schema], ...extra } : { ...schema, ...extra };
}

/** 10^exponent as the JSON number it is (exact for the exponents decimals have) */
const powerOfTen = (exponent: number) => Number(`1e${exponent}`);

/** the schema of one value of a primitive Edm type with its facets */
function primitiveSchema(t: EdmTypeRef): Schema | undefined {
  switch (t.type) {
    case "Edm.String":
      return { type: "string", ...(t.maxLength !== undefined && { maxLength: t.maxLength }) };
    case "Edm.Int32":
      return { type: "integer", format: "int32" };
    case "Edm.Decimal": {
      // a JSON number unless the client asks for IEEE754Compatible=true, which makes it a string
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

export class EdmSchemas {
  readonly #types: ReadonlyMap<string, EdmEntityType | EdmComplexType | EdmEnumType>;
  readonly #namespace: string;
  /** per type that is an owned collection's item: its references back to the owner, which the owner sets */
  readonly #inverses = new Map<string, Set<string>>();

  constructor(schema: EdmSchema) {
    // names inside the document are qualified by the schema's alias when it has one (schema-names.ts)
    this.#namespace = schema.alias ?? schema.namespace;
    this.#types = new Map(schema.types.map((t) => [`${this.#namespace}.${t.name}`, t]));
    for (const t of schema.types) {
      if (t.kind === "enumType") continue;
      for (const n of t.navigation) {
        if (!n.containsTarget) continue;
        const inverses = this.#inverses.get(n.type) ?? new Set();
        if (n.partner !== undefined) inverses.add(n.partner);
        this.#inverses.set(n.type, inverses);
      }
    }
  }

  isEntityType = (qualified: string): boolean => this.#types.get(qualified)?.kind === "entityType";

  /** a value of `t` (one item when `t` is a collection): a primitive with its facets, or a model type */
  valueSchema(t: EdmTypeRef, shape: Shape = "read"): Schema {
    const primitive = primitiveSchema(t);
    if (primitive !== undefined) return primitive;
    const type = this.#types.get(t.type);
    if (type === undefined) throw new Error(`The OpenAPI document has no schema for the Edm type ${t.type}.`);
    return schemaRef(schemaName(t.type, type.kind === "enumType" ? "read" : shape));
  }

  /** the schema of a property, parameter or return type, collections and nulls included */
  typeSchema(t: EdmTypeRef, shape: Shape = "read"): Schema {
    const value = this.valueSchema(t, shape);
    if (t.collection) return { type: "array", items: t.nullable ? orNull(value) : value };
    return t.nullable ? orNull(value) : value;
  }

  /** every model type in every shape it has, by component name */
  components(): Record<string, Schema> {
    const schemas: Record<string, Schema> = {};
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

  #structured(type: EdmStructure, shape: Shape): Schema {
    const properties: Record<string, Schema> = {};
    const required: string[] = [];
    const entity = "key" in type;
    const qualified = `${this.#namespace}.${type.name}`;
    const contained = this.#inverses.has(qualified);
    const inverses = this.#inverses.get(qualified) ?? new Set<string>();
    for (const p of type.properties) {
      const computed = isComputed(p.annotations);
      if (shape !== "read" && computed) continue;
      // the key is given on create or assigned; an update names an owned item by it, never the record
      if (shape === "update" && entity && isImmutable(p.annotations) && !contained) continue;
      properties[p.name] = this.#property(p, shape, computed);
      if (shape === "create" && !p.nullable && p.defaultValue === undefined && !isImmutable(p.annotations))
        required.push(p.name);
    }
    for (const n of type.navigation) {
      properties[n.name] = this.#navigation(n, shape);
      if (shape === "create" && !n.collection && !n.nullable && !inverses.has(n.name)) required.push(n.name);
    }
    const description = descriptionOf(type.annotations);
    const keys = alternateKeysOf(type.annotations);
    const notes = [
      ...(description === undefined ? [] : [description]),
      ...(keys.length === 0
        ? []
        : [`Natural key: ${keys.join(", ")} (unique, so a reference may give it instead of the Guid).`]),
    ];
    return {
      type: "object",
      ...(notes.length > 0 && { description: notes.join("\n\n") }),
      properties,
      ...(required.length > 0 && { required }),
    };
  }

  #property(p: EdmProperty, shape: Shape, computed: boolean): Schema {
    const schema = this.typeSchema(p, shape === "create" ? "update" : shape);
    const description = descriptionOf(p.annotations);
    const extra = {
      ...(description !== undefined && { description }),
      ...(p.defaultValue !== undefined && { default: p.defaultValue }),
      ...(computed && { readOnly: true }),
    };
    return annotated(schema, extra);
  }

  /**
   * A reference reads as the target's Guid (`$select`) or the target itself (`$expand`) and is
   * written as the target's Guid or natural key; an owned collection reads as an array of items
   * (`$expand`) and is written inline, as the new list of items.
   */
  #navigation(n: EdmNavigationProperty, shape: Shape): Schema {
    const description = descriptionOf(n.annotations);
    const described = (schema: Schema): Schema => (description === undefined ? schema : { ...schema, description });
    if (n.collection) {
      const item = schemaRef(schemaName(n.type, shape === "read" ? "read" : shape));
      return described({ type: "array", items: item });
    }
    const target = this.#types.get(n.type);
    const keys = target?.kind === "entityType" ? alternateKeysOf(target.annotations) : [];
    const name = n.type.slice(this.#namespace.length + 1);
    const key: Schema = {
      type: "string",
      description: `The Guid${keys.length === 0 ? "" : ` or the ${keys.join(", ")}`} of a ${name}.`,
    };
    const value: Schema = shape === "read" ? { anyOf: [key, schemaRef(schemaName(n.type))] } : key;
    return described(n.nullable ? (orNull(value) as Schema) : (value as Schema));
  }
}

const enumSchema = (type: EdmEnumType): Schema => ({ type: "string", enum: [...type.members] });
