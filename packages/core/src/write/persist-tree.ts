/**
 * Stores a merged record tree: inserts grouped per entity (one statement per entity and level,
 * owners before items), updates of only the changed columns, removed items deleted together.
 */
import type { AnyEntity } from "../model/model.js";
import type { Session } from "../storage/database.js";
import { recordColumns } from "../storage/record-rows.js";
import { deleteRecords, insertRecords, updateRecordRow } from "../storage/record-store.js";
import { stageRecords, stageTombstones } from "../storage/staged-store.js";
import type { StagedView } from "../storage/staged-view.js";
import type { Body, RecordNode } from "./record-tree.js";

/** the properties whose stored value differs from the loaded one */
function changedProperties(node: RecordNode): Body {
  const before = recordColumns(node.entity, node.previous ?? {});
  const after = recordColumns(node.entity, node.record);
  const changes: Body = {};
  for (const [column, value] of after) {
    // both maps are keyed by the same cached column mappings
    const old = before.get(column);
    if (String(old ?? null) !== String(value ?? null)) changes[column.path[0]!] = node.record[column.path[0]!];
  }
  return changes;
}

export async function persistTree(session: Session, tenantId: string, root: RecordNode): Promise<void> {
  let level = [root];
  while (level.length > 0) {
    const inserts = new Map<AnyEntity, Body[]>();
    const deletes = new Map<AnyEntity, string[]>();
    for (const node of level) {
      if (node.previous === null) {
        inserts.set(node.entity, [...(inserts.get(node.entity) ?? []), node.record]);
        continue;
      }
      const changes = changedProperties(node);
      if (Object.keys(changes).length > 0)
        await updateRecordRow(session, node.entity, tenantId, node.record.Guid as string, changes);
    }
    for (const node of level) {
      for (const [name, removed] of node.removed) {
        const field = node.entity.fields[name] as { target: AnyEntity };
        deletes.set(field.target, [...(deletes.get(field.target) ?? []), ...removed.map((r) => r.Guid as string)]);
      }
    }
    for (const [entity, guids] of deletes) await deleteRecords(session, entity, tenantId, guids);
    for (const [entity, records] of inserts) await insertRecords(session, entity, tenantId, records);
    level = level.flatMap((node) => [...node.items.values()].flat());
  }
}

/**
 * Inside a workflow: stages the tree instead of storing it. Every record the write changed or
 * created is staged whole (its after-image), removed items as tombstones; one statement per
 * entity each.
 */
export async function stageTree(
  session: Session & { view: StagedView },
  tenantId: string,
  root: RecordNode,
): Promise<void> {
  const images = new Map<AnyEntity, Body[]>();
  const tombstones = new Map<AnyEntity, string[]>();
  const visit = (node: RecordNode) => {
    if (node.previous === null || Object.keys(changedProperties(node)).length > 0) {
      images.set(node.entity, [...(images.get(node.entity) ?? []), node.record]);
    }
    for (const [name, removed] of node.removed) {
      const field = node.entity.fields[name] as { target: AnyEntity };
      tombstones.set(field.target, [...(tombstones.get(field.target) ?? []), ...removed.map((r) => r.Guid as string)]);
    }
    for (const items of node.items.values()) items.forEach(visit);
  };
  visit(root);
  for (const [entity, guids] of tombstones) await stageTombstones(session, entity, tenantId, guids);
  for (const [entity, records] of images) await stageRecords(session, entity, tenantId, records);
}
