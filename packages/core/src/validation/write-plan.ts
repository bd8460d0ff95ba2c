/**
 * What may be written into an entity, derived once per definition: a valibot schema per value
 * field, member plans for complex values, and the names that are read-only by nature. Plans are
 * cached, so a request pays only for walking its body.
 */
import * as v from "valibot";
import type { Fields } from "../model/entity.js";
import type { CollectionField, ComplexField, PersistedField, ReferenceField, ScalarField } from "../model/fields.js";
import type { AnyEntity, Model } from "../model/model.js";
import { referenceSchema, scalarSchema, type ValueSchema } from "./value-schemas.js";

export interface ValuePlan {
  readonly kind: "value";
  readonly field: ScalarField | ReferenceField;
  /** per number format; only decimals differ (OData `IEEE754Compatible` admits decimal strings) */
  readonly schemas: { readonly json: ValueSchema; readonly ieee754: ValueSchema };
  /** the field's default, normalized by its schema (a decimal default becomes its exact string) */
  readonly default?: { readonly value: unknown };
}

export interface ComplexPlan {
  readonly kind: "complex";
  readonly field: ComplexField;
  readonly members: ObjectPlan;
}

export interface CollectionPlan {
  readonly kind: "collection";
  readonly field: CollectionField;
}

export type FieldPlan = ValuePlan | ComplexPlan | CollectionPlan;

/** One JSON object of a write: an entity record or a complex value. */
export interface ObjectPlan {
  /** names the object in messages: `Product`, `Customer.MailingAddress` */
  readonly label: string;
  readonly fields: ReadonlyMap<string, FieldPlan>;
  /** names that can be read but never written: virtuals and `RecordReadOnly` */
  readonly computed: ReadonlySet<string>;
  /**
   * The fields a create looks at when the body leaves them out, in `fields` order: values with a
   * default or required, and complex values (their members' defaults)
   */
  readonly absentOnCreate: readonly (readonly [string, FieldPlan])[];
}

function objectPlan(label: string, fields: ReadonlyMap<string, FieldPlan>, computed: ReadonlySet<string>): ObjectPlan {
  const absentOnCreate = [...fields].filter(
    ([, plan]) =>
      plan.kind === "complex" || (plan.kind === "value" && (plan.default !== undefined || plan.field.required)),
  );
  return { label, fields, computed, absentOnCreate };
}

/**
 * Keyed by definition, then by model: a reference's schema depends on its target's natural key,
 * which the model resolves by name.
 */
const plans = new WeakMap<AnyEntity, WeakMap<Model, ObjectPlan>>();

export function entityPlan(model: Model, entity: AnyEntity): ObjectPlan {
  let byModel = plans.get(entity);
  if (byModel === undefined) {
    byModel = new WeakMap();
    plans.set(entity, byModel);
  }
  let plan = byModel.get(model);
  if (plan === undefined) {
    plan = buildEntityPlan(model, entity);
    byModel.set(model, plan);
  }
  return plan;
}

function buildEntityPlan(model: Model, entity: AnyEntity): ObjectPlan {
  const fields = new Map<string, FieldPlan>();
  for (const [name, field] of Object.entries(entity.fields as Fields)) {
    fields.set(name, fieldPlan(model, `${entity.name}.${name}`, field));
  }
  return objectPlan(entity.name, fields, new Set([...Object.keys(entity.virtuals), "RecordReadOnly"]));
}

function fieldPlan(model: Model, path: string, field: PersistedField): FieldPlan {
  switch (field.kind) {
    case "collection":
      return { kind: "collection", field };
    case "complex": {
      const members = new Map<string, FieldPlan>();
      for (const [name, member] of Object.entries(field.fields)) {
        members.set(name, valuePlan(model, `${path}.${name}`, member));
      }
      return { kind: "complex", field, members: objectPlan(path, members, new Set()) };
    }
    default:
      return valuePlan(model, path, field);
  }
}

function valuePlan(model: Model, path: string, field: ScalarField | ReferenceField): ValuePlan {
  const schemas =
    field.kind === "reference" ? sameForBoth(referenceSchema(target(model, path, field))) : scalarSchemas(field);
  const declared = field.kind === "reference" || field.kind === "guid" ? undefined : field.default;
  if (declared === undefined) return { kind: "value", field, schemas };
  const parsed = v.safeParse(schemas.json, declared);
  if (!parsed.success) {
    throw new Error(`${path}: the default ${JSON.stringify(declared)} is invalid; it ${parsed.issues[0].message}.`);
  }
  return { kind: "value", field, schemas, default: { value: parsed.output } };
}

function scalarSchemas(field: ScalarField): ValuePlan["schemas"] {
  return field.kind === "decimal"
    ? { json: scalarSchema(field, false), ieee754: scalarSchema(field, true) }
    : sameForBoth(scalarSchema(field, false));
}

const sameForBoth = (schema: ValueSchema) => ({ json: schema, ieee754: schema });

function target(model: Model, path: string, field: ReferenceField): AnyEntity {
  const entity = model.entity(field.target);
  // defineModel already checks this; a hand-built Model might not
  if (entity === undefined) throw new Error(`${path} references "${field.target}", which is not in the model.`);
  return entity;
}
