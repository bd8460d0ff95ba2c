/**
 * Custom entity methods (spec 4.8): a declaration (description, Read or Modify, instance or
 * static, typed parameters, return type) and the subscribers that implement it, run in
 * registration order. Parameter and return types are inferred from the declaration; the record
 * type from the entity it is declared on (`model.subscribe(Journal.methods.Post, …)`).
 */
import type { EntityDefinition, RecordOf, ScalarValue } from "../model/entity.js";
import type { ScalarField } from "../model/fields.js";
import type { TenantInfo } from "../model/hook-context.js";
import type { EntityRef, ReadRecord } from "../model/typed-read.js";
import type { UserPrompts } from "../prompts/prompts.js";

export type MethodParams = Readonly<Record<string, ScalarField>>;

export type MethodReturns =
  | { readonly kind: "none" }
  | { readonly kind: "scalar"; readonly type: ScalarField }
  | { readonly kind: "entity"; readonly entity: string }
  | { readonly kind: "collection"; readonly entity: string };

/** required = non-nullable without default (spec 4.8 parameter rules 1-2); others may be null */
type ParamValue<F> = F extends { required: true }
  ? ScalarValue<F>
  : F extends { default: infer _ }
    ? ScalarValue<F>
    : ScalarValue<F> | null;

export type MethodArgs<P extends MethodParams> = { readonly [K in keyof P]: ParamValue<P[K]> };

export type ReturnValue<R extends MethodReturns> = R extends { kind: "scalar"; type: infer T }
  ? ScalarValue<T> | null
  : R extends { kind: "entity" }
    ? string | null
    : R extends { kind: "collection" }
      ? readonly string[]
      : // biome-ignore lint/suspicious/noConfusingVoidType: a method that returns nothing has bodies that return nothing
        void;

/**
 * Records of an entity matching an OData `$filter`, all of them (no server page). `@name` in
 * the filter is the argument `name`, bound as a statement parameter typed against what it is
 * compared with; a value never becomes filter text. Given the entity's definition, the records
 * are typed by it.
 *
 * @example query(SalesOrder, "SellToCustomer/Id eq @customerId and Status eq 'Open'", { orderby: "DocNumber" })
 */
export interface QueryRecords {
  <E extends EntityDefinition<string, any, any, any>>(
    entity: E,
    filter: string,
    options?: QueryOptions,
  ): Promise<RecordOf<E>[]>;
  (entity: string, filter: string, options?: QueryOptions): Promise<Record<string, unknown>[]>;
}

export interface QueryOptions {
  readonly orderby?: string;
  readonly top?: number;
}

/**
 * What a subscriber's conditions and body see. `Rec` is the record: its entity's record type for
 * a method subscribed through its entity, `null` for a static method.
 */
export interface MethodContext<A = Record<string, unknown>, Rec = Record<string, unknown> | null> {
  /** the record the method is called on (owned collections included); null for a static method */
  readonly record: Rec;
  readonly args: A;
  readonly tenant: TenantInfo;
  readonly prompts: UserPrompts;
  readonly read: ReadRecord;
  readonly query: QueryRecords;
  /** stops the method with `400 MethodAborted` and this message; undo handlers of earlier subscribers run */
  readonly abort: (message: string) => never;
  /** Modify methods: writes through the full write pipeline (hooks, logic, save logic) */
  readonly create: (entity: EntityRef, body: Record<string, unknown>) => Promise<string>;
  readonly update: (entity: EntityRef, guid: string, body: Record<string, unknown>) => Promise<void>;
  readonly remove: (entity: EntityRef, guid: string) => Promise<void>;
  /** Modify methods: stores the changes made to `record` now (save-on-completion methods save once at the end) */
  readonly save: () => Promise<void>;
}

export interface AskUser {
  readonly text: string;
  readonly accept: string;
  readonly reject: string;
  /** the choice a plain request takes (spec 4.8 rule 4) */
  readonly default: "accept" | "reject";
}

export interface MethodSubscriber<A = any, T = unknown, Rec = any> {
  readonly name: string;
  /** runs (conditions included) only for tenants with this feature */
  readonly feature?: string;
  /** instance methods: disables the method for this record (and lists it in RecordReadOnly); must be cheap */
  readonly disableIf?: (record: NonNullable<Rec>) => boolean;
  /** blocks the call with `message`; with `askUser` the user may choose to go on */
  readonly abortIf?: {
    readonly when: (ctx: MethodContext<A, Rec>) => boolean | Promise<boolean>;
    readonly message: string;
    readonly askUser?: AskUser;
  };
  readonly run?: (ctx: MethodContext<A, Rec>) => T | Promise<T>;
  /** reverts what `run` did when a later subscriber aborts (spec 4.8 rule 5) */
  readonly undo?: (ctx: MethodContext<A, Rec>) => void | Promise<void>;
}

// the record type a declaration's subscribers see exists only for the compiler: no value carries it
declare const recordType: unique symbol;

/**
 * A declared method. `Rec` is what its subscribers see as `record`: a plain record as `method()`
 * declares it (null when static), the entity's record type once read from the entity's `methods`
 * (`Journal.methods.Post`).
 */
export interface MethodDeclaration<
  P extends MethodParams = MethodParams,
  R extends MethodReturns = MethodReturns,
  Rec = Record<string, unknown> | null,
> {
  readonly kind: "method";
  readonly description: string;
  readonly type: "read" | "modify";
  readonly isStatic: boolean;
  readonly params: P;
  readonly returns: R;
  /** check the record first, run every subscriber, then save once (spec 4.8 rule 6) */
  readonly saveOnCompletion: boolean;
  readonly [recordType]?: Rec;
}

/** a declaration as its entity holds it: its subscribers see `Rec` (the entity's record type), or null when static */
export type MethodOf<D, Rec> =
  D extends MethodDeclaration<infer P, infer R, infer Own>
    ? MethodDeclaration<P, R, Own extends null ? null : Rec>
    : never;

/**
 * Declares a method; add it to an entity's `methods` and implement it with `model.subscribe` on
 * the entity's `methods`, where its subscribers see the entity's record type.
 *
 * @example
 * const SalesOrder = entity("SalesOrder", {
 *   naturalKey: "DocNumber",
 *   fields: { DocNumber: text({ required: true }), TotalPrice: decimal() },
 *   methods: {
 *     CalculateLineTotal: method({
 *       description: "Line total with tax",
 *       type: "read",
 *       params: { taxRate: decimal({ required: true }) },
 *       returns: { kind: "scalar", type: decimal() },
 *     }),
 *   },
 * });
 * model.subscribe(SalesOrder.methods.CalculateLineTotal, {
 *   name: "LineTotal",
 *   run: ({ record, args }) => (record.TotalPrice ?? 0) * (1 + args.taxRate),
 * });
 */
export function method<
  const P extends MethodParams = {},
  const R extends MethodReturns = { kind: "none" },
  const S extends boolean = false,
>(config: {
  readonly description: string;
  readonly type: "read" | "modify";
  readonly isStatic?: S;
  readonly params?: P;
  readonly returns?: R;
  readonly saveOnCompletion?: boolean;
}): MethodDeclaration<P, R, S extends true ? null : Record<string, unknown>> {
  if (config.saveOnCompletion && (config.type === "read" || config.isStatic)) {
    throw new Error("saveOnCompletion applies to instance Modify methods only.");
  }
  return {
    kind: "method",
    description: config.description,
    type: config.type,
    isStatic: config.isStatic ?? false,
    params: (config.params ?? {}) as P,
    returns: (config.returns ?? { kind: "none" }) as R,
    saveOnCompletion: config.saveOnCompletion ?? false,
  };
}

/** whether a subscriber (body and conditions) runs for a tenant with these features (spec 4.8 rule 7) */
export const runsFor = (subscriber: MethodSubscriber, features: ReadonlySet<string>): boolean =>
  subscriber.feature === undefined || features.has(subscriber.feature);

/**
 * A method whose subscribers (`model.subscribers(declaration)`) all belong to features the tenant
 * lacks is unavailable to it (spec 4.8 rule 8: `403 MethodUnavailable`). One with no subscriber
 * at all is not: it is a developer's configuration error (`501`), the same for every tenant.
 */
export const isUnavailable = (subscribers: readonly MethodSubscriber[], features: ReadonlySet<string>): boolean =>
  subscribers.length > 0 && !subscribers.some((s) => runsFor(s, features));
