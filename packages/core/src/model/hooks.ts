/**
 * The shape of the hooks an entity declares for its write pipeline (architecture: body →
 * deserialization hooks → natural-key resolution → validation → business logic → save logic →
 * one transaction). Every hook can be gated by a tenant feature: it runs only for tenants that
 * have the feature enabled.
 */
import type { HookContext, SaveContext } from "./hook-context.js";

interface Gated {
  /** a short name, used in logs and error targets */
  readonly name: string;
  /** the tenant feature this hook belongs to; absent = always on */
  readonly feature?: string;
}

/**
 * Runs on the raw JSON body before anything else: may rename, translate or default incoming
 * properties (e.g. accept a legacy property name). Returns the body to continue with.
 */
export interface DeserializeHook extends Gated {
  readonly run: (body: Record<string, unknown>, ctx: { readonly isCreate: boolean }) => Record<string, unknown>;
}

/**
 * The records a hook reads with `read` for one record, as pairs of entity name and Guid (a null
 * or undefined Guid is skipped): the hook's bulk form. The pipeline runs a hook over many records
 * at once (a `$batch` changeset's, a workflow's commit, an import's chunk); with `reads` it first
 * loads what every one of them will read, in one statement per entity, and each `read` is then
 * answered from memory. Without it each distinct record costs a statement of its own.
 */
export type HookReads<R> = (ctx: {
  readonly record: Readonly<R>;
  /** for an item of an owned collection: its owner as it stands */
  readonly owner: Readonly<Record<string, unknown>> | null;
  /** the properties the write changed */
  readonly changed: ReadonlySet<string>;
}) => Iterable<readonly [entity: string, guid: unknown]>;

/** Business logic: runs on the current state after every change (`on` narrows it to some properties). */
export interface LogicHook<R> extends Gated {
  readonly on?: readonly (keyof R & string)[];
  readonly run: (ctx: HookContext<R>) => void | Promise<void>;
  readonly reads?: HookReads<R>;
}

/** Save logic: runs once when the record is saved; may reject the save or ask a question. */
export interface SaveHook<R> extends Gated {
  readonly run: (ctx: SaveContext<R>) => void | Promise<void>;
  readonly reads?: HookReads<R>;
}

export interface EntityHooks<R> {
  readonly deserialize?: readonly DeserializeHook[];
  readonly logic?: readonly LogicHook<R>[];
  readonly save?: readonly SaveHook<R>[];
}
