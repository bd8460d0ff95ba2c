/**
 * Stores merged record trees through the session's store (the base tables, or a workflow's
 * staged state): inserts grouped per entity (one statement per entity and level for all the
 * trees, owners before items), updates of only the changed columns, removed items deleted
 * together.
 */
import type { AnyEntity } from "../model/model.js";
import type { Session } from "../storage/database.js";
import { recordColumns } from "../storage/record-rows.js";
import type { Body, RecordNode } from "./record-tree.js";

/** the properties whose stored value differs from the loaded one */
export function changedProperties(def: AnyEntity, record: Body, previous: Body): Body {
  const before = recordColumns(def, previous);
  const after = recordColumns(def, record);
  const changes: Body = {};
  for (const [column, value] of after) {
    // both maps are keyed by the same cached column mappings
    const old = before.get(column);
    if (String(old ?? null) !== String(value ?? null)) changes[column.path[0]!] = record[column.path[0]!];
  }
  return changes;
}

/** Stores merged record trees together: per level, one insert per entity for all of them. */
export async function saveTrees(session: Session, tenantId: string, roots: readonly RecordNode[]): Promise<void> {
  const store = session.store;
  let level = [...roots];
  while (level.length > 0) {
    const inserts = new Map<AnyEntity, Body[]>();
    const removals = new Map<AnyEntity, string[]>();
    for (const node of level) {
      if (node.previous === null) {
        const list = inserts.get(node.entity);
        if (list === undefined) inserts.set(node.entity, [node.record]);
        else list.push(node.record);
        continue;
      }
      const changes = changedProperties(node.entity, node.record, node.previous);
      if (Object.keys(changes).length > 0) await store.update(session, node.entity, tenantId, node.record, changes);
    }
    for (const node of level) {
      for (const [name, removed] of node.removed) {
        if (removed.length === 0) continue;
        const field = node.entity.fields[name] as { target: AnyEntity };
        removals.set(field.target, [...(removals.get(field.target) ?? []), ...removed.map((r) => r.Guid as string)]);
      }
    }
    for (const [entity, guids] of removals) await store.remove(session, entity, tenantId, guids);
    for (const [entity, records] of inserts) await store.insert(session, entity, tenantId, records);
    const next: RecordNode[] = [];
    for (const node of level) for (const items of node.items.values()) for (const item of items) next.push(item);
    level = next;
  }
}
