/**
 * Custom entity methods (spec 4.8): a declaration (description, Read or Modify, instance or
 * static, typed parameters, return type) and the subscribers that implement it, run in
 * registration order. Parameter and return types are inferred from the declaration.
 */
import type { ScalarValue } from "../model/entity.js";
import type { ScalarField } from "../model/fields.js";
import type { TenantInfo } from "../model/hook-context.js";
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

/** what a subscriber's conditions and body see */
export interface MethodContext<A = Record<string, unknown>> {
  /** the record the method is called on (owned collections included); null for a static method */
  readonly record: Record<string, unknown> | null;
  readonly args: A;
  readonly tenant: TenantInfo;
  readonly prompts: UserPrompts;
  readonly read: (entity: string, guid: string) => Promise<Record<string, unknown> | null>;
  /**
   * Records of an entity matching an OData `$filter`, all of them (no server page). `@name` in
   * the filter is the argument `name`, bound as a statement parameter typed against what it is
   * compared with; a value never becomes filter text.
   *
   * @example query("SalesOrder", "SellToCustomer/Id eq @customerId and Status eq 'Open'", { orderby: "DocNumber" })
   */
  readonly query: (
    entity: string,
    filter: string,
    options?: { orderby?: string; top?: number },
  ) => Promise<Record<string, unknown>[]>;
  /** stops the method with `400 MethodAborted` and this message; undo handlers of earlier subscribers run */
  readonly abort: (message: string) => never;
  /** Modify methods: writes through the full write pipeline (hooks, logic, save logic) */
  readonly create: (entity: string, body: Record<string, unknown>) => Promise<string>;
  readonly update: (entity: string, guid: string, body: Record<string, unknown>) => Promise<void>;
  readonly remove: (entity: string, guid: string) => Promise<void>;
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

export interface MethodSubscriber<A = any, T = unknown> {
  readonly name: string;
  /** runs (conditions included) only for tenants with this feature */
  readonly feature?: string;
  /** instance methods: disables the method for this record (and lists it in RecordReadOnly); must be cheap */
  readonly disableIf?: (record: Record<string, unknown>) => boolean;
  /** blocks the call with `message`; with `askUser` the user may choose to go on */
  readonly abortIf?: {
    readonly when: (ctx: MethodContext<A>) => boolean | Promise<boolean>;
    readonly message: string;
    readonly askUser?: AskUser;
  };
  readonly run?: (ctx: MethodContext<A>) => T | Promise<T>;
  /** reverts what `run` did when a later subscriber aborts (spec 4.8 rule 5) */
  readonly undo?: (ctx: MethodContext<A>) => void | Promise<void>;
}

export interface MethodDeclaration<P extends MethodParams = MethodParams, R extends MethodReturns = MethodReturns> {
  readonly kind: "method";
  readonly description: string;
  readonly type: "read" | "modify";
  readonly isStatic: boolean;
  readonly params: P;
  readonly returns: R;
  /** check the record first, run every subscriber, then save once (spec 4.8 rule 6) */
  readonly saveOnCompletion: boolean;
}

/**
 * Declares a method; add it to an entity's `methods` and implement it with `model.subscribe`.
 *
 * @example
 * const CalculateLineTotal = method({
 *   description: "Line total with tax and discount",
 *   type: "read",
 *   params: { taxRate: decimal({ required: true }), quantity: integer({ required: true }), discount: decimal({ default: 0 }) },
 *   returns: { kind: "scalar", type: decimal() },
 * });
 */
export function method<const P extends MethodParams = {}, const R extends MethodReturns = { kind: "none" }>(config: {
  readonly description: string;
  readonly type: "read" | "modify";
  readonly isStatic?: boolean;
  readonly params?: P;
  readonly returns?: R;
  readonly saveOnCompletion?: boolean;
}): MethodDeclaration<P, R> {
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
