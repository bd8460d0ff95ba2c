/**
 * A model is the set of entities one service exposes, and the subscribers that implement their
 * methods. `defineModel` checks the definitions against each other once (every reference and
 * collection points at a registered entity, every collection's inverse is a reference back to its
 * owner) so later stages can trust them. Subscribers live on the model, not on the shared method
 * declarations, so two models over the same entities never see each other's.
 */
import type {
  MethodArgs,
  MethodDeclaration,
  MethodParams,
  MethodReturns,
  MethodSubscriber,
  ReturnValue,
} from "../methods/method.js";
import type { EntityDefinition } from "./entity.js";
import type { CollectionField, PersistedField } from "./fields.js";
import { checkPresentation } from "./presentation.js";

export type AnyEntity = EntityDefinition<string, any, any, any>;

export interface Model {
  /** the namespace that qualifies the model's types and operations in `$metadata` (default `bizdata`) */
  readonly namespace: string;
  /**
   * A short name for the namespace, declared as the schema's `Alias` in `$metadata`; a client may
   * qualify an operation with either (`acme.sales.Post` or `sales.Post`)
   */
  readonly alias?: string;
  readonly entities: ReadonlyMap<string, AnyEntity>;
  /** the entity named exactly `name` (case sensitive, spec 2.1), or undefined */
  entity(name: string): AnyEntity | undefined;
  /** for an entity owned through a collection: the owner and the inverse reference property */
  owner(
    name: string,
  ): { readonly entity: AnyEntity; readonly collection: string; readonly inverse: string } | undefined;
  /**
   * Implements a method of one of the model's entities; subscribers run in the order they were
   * registered. Returns the model, so registrations chain. Named through its entity
   * (`Journal.methods.Post`), the method's subscribers see the entity's record type.
   */
  subscribe<P extends MethodParams, R extends MethodReturns, Rec>(
    declaration: MethodDeclaration<P, R, Rec>,
    subscriber: MethodSubscriber<MethodArgs<P>, ReturnValue<R>, NoInfer<Rec>>,
  ): Model;
  /** the subscribers of a method, in registration order (none: the method is declared but not implemented) */
  subscribers(declaration: MethodDeclaration<any, any, any>): readonly MethodSubscriber[];
}

export interface ModelOptions {
  /** dot-separated identifiers, e.g. `acme.sales`; default `bizdata` */
  readonly namespace?: string;
  /** a simple identifier standing for the namespace in `$metadata` and in operation names */
  readonly alias?: string;
}

export const DEFAULT_NAMESPACE = "bizdata";

// CSDL 4.01 §5.1: a namespace is dot-separated simple identifiers; these prefixes are reserved
const NAMESPACE = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;
const RESERVED_NAMESPACES = ["Edm", "odata", "System", "Transient"];

/**
 * @example
 * const model = defineModel([Product, ProductUom, Customer], { namespace: "acme" });
 * model.entity("Product")?.naturalKey.property; // "SKU"
 * model.subscribe(Product.methods.GetDefaultMarkup, { name: "Markup", run: ({ record }) => markup(record.Cost) });
 */
export function defineModel(definitions: readonly AnyEntity[], options: ModelOptions = {}): Model {
  const namespace = options.namespace ?? DEFAULT_NAMESPACE;
  if (!NAMESPACE.test(namespace) || namespace.length > 511) {
    throw new Error(`Namespace "${namespace}" must be dot-separated identifiers, e.g. "acme.sales".`);
  }
  if (RESERVED_NAMESPACES.some((reserved) => namespace === reserved || namespace.startsWith(`${reserved}.`))) {
    throw new Error(`Namespace "${namespace}" is reserved by OData; choose another.`);
  }
  const { alias } = options;
  if (alias !== undefined) {
    // CSDL 4.01 §5.1: a simple identifier; the vocabularies $metadata includes use Core, Capabilities, Common and UI
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(alias) || alias === namespace) {
      throw new Error(`Alias "${alias}" must be a simple identifier other than the namespace, e.g. "sales".`);
    }
    if ([...RESERVED_NAMESPACES, "Core", "Capabilities", "Common", "UI"].includes(alias)) {
      throw new Error(`Alias "${alias}" is taken by OData or a vocabulary; choose another.`);
    }
  }
  const entities = new Map<string, AnyEntity>();
  for (const def of definitions) {
    if (entities.has(def.name)) throw new Error(`Entity "${def.name}" is registered twice.`);
    entities.set(def.name, def);
  }
  const owners = new Map<string, { entity: AnyEntity; collection: string; inverse: string }>();
  const registered = (target: AnyEntity | string, from: string): AnyEntity => {
    const name = typeof target === "string" ? target : target.name;
    const def = entities.get(name);
    if (def === undefined || (typeof target !== "string" && def !== target)) {
      throw new Error(`${from} points at entity "${name}", which is not part of the model; add it to defineModel.`);
    }
    return def;
  };
  const checkField = (owner: AnyEntity, path: string, field: PersistedField) => {
    if (field.kind === "reference" && registered(field.target, path).storage !== undefined) {
      throw new Error(`${path} refers to the virtual entity "${field.target}", whose records are never stored.`);
    }
    if (field.kind === "complex") {
      for (const [name, member] of Object.entries(field.fields)) checkField(owner, `${path}.${name}`, member);
    }
    if (field.kind === "collection") checkCollection(owner, path, field);
  };
  const checkCollection = (owner: AnyEntity, path: string, field: CollectionField) => {
    const item = registered(field.target, path);
    const inverse = item.fields[field.inverse] as PersistedField | undefined;
    if (inverse?.kind !== "reference" || inverse.target !== owner.name) {
      throw new Error(`${path}: inverse "${field.inverse}" must be a reference from ${item.name} to ${owner.name}.`);
    }
    const previous = owners.get(item.name);
    if (previous !== undefined) {
      throw new Error(
        `${item.name} is owned by both ${previous.entity.name} and ${owner.name}; an item has one owner.`,
      );
    }
    owners.set(item.name, { entity: owner, collection: path.slice(owner.name.length + 1), inverse: field.inverse });
  };
  for (const def of entities.values()) {
    for (const [name, field] of Object.entries(def.fields as Record<string, PersistedField>)) {
      checkField(def, `${def.name}.${name}`, field);
    }
  }
  for (const def of entities.values()) checkPresentation(def, entities);
  const subscribers = new Map<MethodDeclaration<any, any, any>, MethodSubscriber[]>();
  const declared = new Set<MethodDeclaration<any, any, any>>(
    [...entities.values()].flatMap((def) => Object.values(def.methods)),
  );
  const model: Model = {
    namespace,
    ...(alias !== undefined && { alias }),
    entities,
    entity: (name) => entities.get(name),
    owner: (name) => owners.get(name),
    subscribe(declaration, subscriber) {
      if (!declared.has(declaration)) {
        throw new Error(
          `${subscriber.name}: its method is not in the methods of any entity of this model; add it to an entity's methods.`,
        );
      }
      if (subscriber.disableIf && declaration.isStatic)
        throw new Error(`${subscriber.name}: DisableIf needs a record; the method is static.`);
      const list = subscribers.get(declaration) ?? [];
      list.push(subscriber as MethodSubscriber);
      subscribers.set(declaration, list);
      return model;
    },
    subscribers: (declaration) => subscribers.get(declaration) ?? [],
  };
  return model;
}
