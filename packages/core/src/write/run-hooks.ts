/**
 * Runs an entity's hooks in the write pipeline's order, each only for tenants with its feature
 * (spec 1: "logic that belongs to a feature runs only for tenants that have the feature").
 */
import type { ErrorDetail } from "../errors.js";
import type { HookContext, SaveContext, TenantInfo } from "../model/hook-context.js";
import type { LogicHook, SaveHook } from "../model/hooks.js";
import type { AnyEntity } from "../model/model.js";
import type { UserPrompts } from "../prompts/prompts.js";
import type { RecordNode } from "./record-tree.js";

const enabled = (hook: { feature?: string }, tenant: TenantInfo) =>
  hook.feature === undefined || tenant.features.has(hook.feature);

/** deserialization hooks: each may rewrite the raw body before validation */
export function runDeserializeHooks(def: AnyEntity, body: unknown, isCreate: boolean, tenant: TenantInfo): unknown {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return body;
  let current = body as Record<string, unknown>;
  for (const hook of def.hooks.deserialize ?? []) {
    if (enabled(hook, tenant)) current = hook.run(current, { isCreate });
  }
  return current;
}

export interface HookEnvironment {
  readonly tenant: TenantInfo;
  readonly prompts: UserPrompts;
  readonly read: HookContext<unknown>["read"];
  /** reads the records of `guids` of one entity that were not read yet, in one statement */
  readonly preload: (entity: string, guids: Iterable<string>) => Promise<void>;
}

const context = (node: RecordNode, env: HookEnvironment): HookContext<any> => ({
  record: node.record,
  previous: node.previous,
  changed: node.changed,
  owner: node.owner?.record ?? null,
  tenant: env.tenant,
  prompts: env.prompts,
  read: env.read,
});

const runsOn = (hook: LogicHook<any>, node: RecordNode) => {
  const on = hook.on as readonly string[] | undefined;
  return on === undefined || node.previous === null || on.some((p) => node.changed.has(p));
};

/**
 * The bulk form of the hooks of `kind` (their `reads`) over many records: what every enabled hook
 * that will run on them reads, loaded first with one statement per entity.
 */
export async function preloadReads(
  nodes: readonly RecordNode[],
  kind: "logic" | "save",
  env: HookEnvironment,
): Promise<void> {
  const wanted = new Map<string, Set<string>>();
  for (const node of nodes) {
    const hooks: readonly (LogicHook<any> | SaveHook<any>)[] = node.entity.hooks[kind] ?? [];
    for (const hook of hooks) {
      if (hook.reads === undefined || !enabled(hook, env.tenant)) continue;
      if (kind === "logic" && !runsOn(hook as LogicHook<any>, node)) continue;
      for (const [entity, guid] of hook.reads({
        record: node.record,
        owner: node.owner?.record ?? null,
        changed: node.changed,
      })) {
        if (typeof guid !== "string") continue;
        const guids = wanted.get(entity);
        if (guids === undefined) wanted.set(entity, new Set([guid]));
        else guids.add(guid);
      }
    }
  }
  for (const [entity, guids] of wanted) await env.preload(entity, guids);
}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  value !== null && typeof value === "object" && typeof (value as { then?: unknown }).then === "function";

/**
 * Runs `hooks` in order from `from`, awaiting only a hook that returns a promise: most hooks are
 * synchronous, and a changeset or a commit runs them for every record, so nothing is scheduled
 * for those. Undefined when every hook has run.
 */
function runInOrder<H>(hooks: readonly H[], run: (hook: H) => unknown, from = 0): Promise<void> | undefined {
  for (let i = from; i < hooks.length; i++) {
    const result = run(hooks[i]!);
    if (isThenable(result)) return Promise.resolve(result).then(() => runInOrder(hooks, run, i + 1));
  }
  return undefined;
}

/**
 * business logic: a hook with `on` runs only when one of those properties changed (or on
 * create); a promise only when a hook returned one
 */
export function runLogicHooks(node: RecordNode, env: HookEnvironment): Promise<void> | undefined {
  const hooks = node.entity.hooks.logic;
  if (hooks === undefined) return undefined;
  return runInOrder(hooks, (hook) =>
    enabled(hook, env.tenant) && runsOn(hook, node) ? hook.run(context(node, env)) : undefined,
  );
}

/** save logic: collects rejections as validation details with the property's full path; a promise only when a hook returned one */
export function runSaveHooks(
  node: RecordNode,
  env: HookEnvironment,
  rejected: ErrorDetail[],
): Promise<void> | undefined {
  const hooks = node.entity.hooks.save;
  if (hooks === undefined) return undefined;
  const reject = (property: string | null, message: string) => {
    const target = property === null ? node.path.replace(/\.$/, "") : `${node.path}${property}`;
    rejected.push({ code: "SaveRejected", message, ...(target !== "" && { target }) });
  };
  // one context for all of the record's save hooks
  let ctx: SaveContext<any> | undefined;
  return runInOrder(hooks, (hook) => {
    if (!enabled(hook, env.tenant)) return undefined;
    ctx ??= { ...context(node, env), reject };
    return hook.run(ctx);
  });
}
