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

/** Business logic: runs on the current state after every change (`on` narrows it to some properties). */
export interface LogicHook<R> extends Gated {
  readonly on?: readonly (keyof R & string)[];
  readonly run: (ctx: HookContext<R>) => void | Promise<void>;
}

/** Save logic: runs once when the record is saved; may reject the save or ask a question. */
export interface SaveHook<R> extends Gated {
  readonly run: (ctx: SaveContext<R>) => void | Promise<void>;
}

export interface EntityHooks<R> {
  readonly deserialize?: readonly DeserializeHook[];
  readonly logic?: readonly LogicHook<R>[];
  readonly save?: readonly SaveHook<R>[];
}
