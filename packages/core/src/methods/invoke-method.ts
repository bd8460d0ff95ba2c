/**
 * Calling a method (spec 4.8 execution rules, spec 6): every DisableIf and AbortIf of the
 * enabled subscribers is checked before any body runs; bodies run in registration order; an
 * abort inside a body runs the undo handlers of the subscribers that already ran, in reverse,
 * and keeps what a subscriber without undo did; save-on-completion checks the record first and
 * saves once at the end. What a body saves is held to its properties' constraints as a PATCH is
 * (write-record's pipeline): a save that breaks one is a 400 with a PATCH's details, which
 * undoes a save-on-completion method's bodies, and the request stores nothing. The same function
 * serves HTTP calls and server code.
 */
import { ServiceError, validationError } from "../errors.js";
import type { AnyEntity, Model } from "../model/model.js";
import { type EntityRef, modelEntity, readRecord } from "../model/typed-read.js";
import type { QuestionInput } from "../prompts/prompts.js";
import { loadRecords } from "../storage/record-store.js";
import { loadTree } from "../write/record-tree.js";
import { createRecord, deleteRecord, saveChanges, updateRecord, type WriteContext } from "../write/write-record.js";
import {
  isUnavailable,
  type MethodContext,
  type MethodDeclaration,
  type MethodSubscriber,
  type QueryOptions,
  type QueryRecords,
  runsFor,
} from "./method.js";
import { methodArguments } from "./method-arguments.js";

export interface MethodCall {
  readonly entity: AnyEntity;
  readonly name: string;
  /** the record's Guid for an instance method, null for a static one */
  readonly key: string | null;
  readonly args: Readonly<Record<string, unknown>>;
  /** arguments from a URL (text) rather than a JSON body */
  readonly argsAsText: boolean;
}

export interface MethodEnvironment extends WriteContext {
  /**
   * Inside a workflow: the answer to an AskUser question if it has one, or undefined after
   * storing the question with the call, to run when the user answers (spec 4.8 rule 4).
   */
  readonly defer?: (question: QuestionInput, call: MethodCall) => Promise<string | undefined>;
  /** finds records by an OData `$filter`; `args` are the call's arguments, the values of `@name` in the filter */
  readonly query: (
    entity: string,
    filter: string,
    options: { orderby?: string; top?: number },
    args: Readonly<Record<string, unknown>>,
  ) => Promise<Record<string, unknown>[]>;
}

export type MethodOutcome =
  | { readonly status: "done"; readonly value: unknown; readonly method: MethodDeclaration<any, any> }
  /** waiting for the answer to an AskUser question; nothing ran */
  | { readonly status: "deferred" }
  /** aborted inside a body: what stays (subscribers without undo) is to be committed, then answered 400 */
  | { readonly status: "aborted"; readonly error: ServiceError };

class Aborted extends Error {}

/** the method, or the error that says why it cannot be called (not declared, or static called on a record and back) */
export function resolveMethod(entity: AnyEntity, name: string, isStatic: boolean): MethodDeclaration {
  const declaration = Object.hasOwn(entity.methods, name) ? entity.methods[name] : undefined;
  if (declaration === undefined) {
    throw new ServiceError("NotFound", `${entity.name} has no method "${name}"; names are case sensitive.`, name);
  }
  if (declaration.isStatic !== isStatic) {
    throw new ServiceError(
      "InvalidMethodCall",
      declaration.isStatic
        ? `${entity.name}.${name} is static: call /api/${entity.name}/${name}.`
        : `${entity.name}.${name} needs a record: call /api/${entity.name}({guid})/${name}.`,
      name,
    );
  }
  return declaration;
}

/** the names of the instance methods disabled for `record` (RecordReadOnly, spec 4.8 rule 2) */
export function disabledMethods(
  model: Model,
  entity: AnyEntity,
  record: Record<string, unknown>,
  features: ReadonlySet<string>,
): string[] {
  const names: string[] = [];
  for (const [name, declaration] of Object.entries(entity.methods)) {
    if (declaration.isStatic) continue;
    if (model.subscribers(declaration).some((s) => runsFor(s, features) && s.disableIf?.(record) === true))
      names.push(name);
  }
  return names;
}

export async function invokeMethod(
  env: MethodEnvironment,
  call: MethodCall,
  declaration: MethodDeclaration<any, any>,
): Promise<MethodOutcome> {
  const { entity, name } = call;
  const label = `${entity.name}.${name}`;
  const registered = env.model.subscribers(declaration);
  if (registered.length === 0) {
    throw new ServiceError(
      "MethodNotImplemented",
      `${label} has no subscriber registered: it is declared but not implemented.`,
    );
  }
  if (isUnavailable(registered, env.tenant.features))
    throw new ServiceError("MethodUnavailable", `${label} is not available for this tenant.`);
  const subscribers = registered.filter((s) => runsFor(s, env.tenant.features));
  const args = methodArguments(label, declaration.params, call.args, call.argsAsText);
  const modify = declaration.type === "modify";
  const loaded =
    call.key === null ? undefined : await loadTree(env.session, entity, env.tenant.id, call.key, { lock: modify });
  if (call.key !== null && loaded === undefined)
    throw new ServiceError("NotFound", `${entity.name}(${call.key}) does not exist.`);
  const record = loaded === undefined ? null : loaded.record;
  if (record && loaded) for (const [collection, items] of loaded.items) record[collection] = items.map((i) => i.record);
  const snapshot = record === null ? null : structuredClone(record);

  const writable = <T>(fn: T): T => {
    if (!modify) {
      return (() => {
        throw new Error(`${label} is a Read method and cannot change data.`);
      }) as T;
    }
    return fn;
  };
  const save = async () => {
    if (record === null || snapshot === null) return;
    const changes: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(record)) {
      if (JSON.stringify(value) !== JSON.stringify(snapshot[key])) changes[key] = value;
    }
    if (Object.keys(changes).length > 0) await saveChanges(env, entity, call.key!, changes);
    Object.assign(snapshot, structuredClone(record));
  };
  const target = (e: EntityRef) => modelEntity(env.model, e, label);
  // typed by the definition a query names, as a read is (typed-read.ts)
  const query = ((e: EntityRef, filter: string, options?: QueryOptions) =>
    env.query(target(e).name, filter, options ?? {}, args)) as QueryRecords;
  const ctx: MethodContext<any> = {
    record,
    args,
    tenant: env.tenant,
    prompts: env.prompts,
    read: readRecord(
      env.model,
      label,
      async (def, guid) => (await loadRecords(env.session, def, env.tenant.id, [guid]))[0] ?? null,
    ),
    query,
    abort: (message) => {
      throw new Aborted(message);
    },
    create: writable((e: EntityRef, body: Record<string, unknown>) => createRecord(env, target(e), body)),
    update: writable((e: EntityRef, guid: string, body: Record<string, unknown>) =>
      updateRecord(env, target(e), guid, body),
    ),
    remove: writable((e: EntityRef, guid: string) => deleteRecord(env, target(e), guid)),
    save: writable(declaration.saveOnCompletion ? async () => {} : save),
  };

  // spec 4.8 rule 1: every condition before any body
  for (const s of subscribers) {
    if (record !== null && s.disableIf?.(record)) {
      throw new ServiceError("MethodDisabled", `${label} is disabled for this record.`, name);
    }
  }
  for (const s of subscribers) {
    if (!s.abortIf || !(await s.abortIf.when(ctx))) continue;
    const ask = s.abortIf.askUser;
    if (!ask) throw new ServiceError("MethodAborted", s.abortIf.message, name);
    const question = {
      key: `${label}:${s.name}`,
      text: ask.text,
      choices: [
        { key: "accept", label: ask.accept },
        { key: "reject", label: ask.reject },
      ],
      default: ask.default,
      ...(record !== null && { entityGuid: record.Guid as string }),
    };
    // rule 4: in a workflow the body waits for the answer, with the call captured; outside one
    // the question takes its default choice
    const choice = env.defer ? await env.defer(question, call) : await env.prompts.ask(question);
    if (choice === undefined) return { status: "deferred" };
    if (choice !== "accept") throw new ServiceError("MethodAborted", s.abortIf.message, name);
  }
  if (declaration.saveOnCompletion && record !== null) {
    // rule 6: existing errors and required properties first
    const missing = Object.entries(entity.fields as Record<string, { required?: boolean; kind: string }>)
      .filter(
        ([key, f]) => f.required && f.kind !== "collection" && (record[key] === null || record[key] === undefined),
      )
      .map(([key]) => ({ code: "Required", message: `${key} is required before ${name} can run.`, target: key }));
    if (missing.length > 0) throw validationError(missing);
  }

  const ran: MethodSubscriber[] = [];
  let value: unknown;
  const undo = async () => {
    for (const s of [...ran].reverse()) await s.undo?.(ctx);
  };
  try {
    for (const s of subscribers) {
      if (!s.run) continue;
      value = await s.run(ctx);
      // only completed bodies are undone: the one that aborts stopped itself
      ran.push(s);
    }
    if (declaration.saveOnCompletion) await save();
  } catch (err) {
    if (err instanceof Aborted) {
      // rule 5: the body that aborted and the ones before it are undone in reverse; the rest never ran
      await undo();
      return { status: "aborted", error: new ServiceError("MethodAborted", err.message, name) };
    }
    if (declaration.saveOnCompletion) await undo();
    throw err;
  }
  return { status: "done", value, method: declaration };
}
