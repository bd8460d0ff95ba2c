/**
 * A POST to an owner's collection (`SalesOrder(…)/Details`, OData 4.01 §11.4.2: the new entity
 * is related to the one the path names): the owner it adds to, read as a GET of it reads it, and
 * the item's body with that owner set.
 */
import { notFound, type Session, validationError } from "@bizdata/core";
import { checkOwners } from "../read/owner-checks.js";
import type { PlannedRead } from "../read/read-planner.js";
import { runRelated, runSingle } from "../read/run-read.js";
import type { ODataRequest } from "./odata-request.js";
import { type ServiceContext, storeOf } from "./service-context.js";

/**
 * The owner a POST to its collection adds an item to (`SalesOrder(…)` of `SalesOrder(…)/
 * Details`), planned as a GET of it for its Guid: the record it names, or the one its
 * references lead to, once any owners on the way are found to hold their items.
 */
export function ownerRead(service: ServiceContext, request: ODataRequest): PlannedRead & { kind: "entity" } {
  const planned = service.planner.plan({
    path: request.path.slice(0, request.path.lastIndexOf("/")),
    search: new URLSearchParams({ $select: "Guid" }),
    ieee754Compatible: false,
    store: storeOf(service),
    metadata: "none",
  });
  if (planned.kind !== "entity") throw new Error("the record before a collection plans as an entity read");
  return planned;
}

/** the Guid of the owner `owner` reads, in `tx`; 404 when there is none */
export async function ownerGuid(
  tx: Session,
  owner: PlannedRead & { kind: "entity" },
  tenantId: string,
): Promise<string> {
  const args = { tenantId, ...(owner.key !== undefined && { key: owner.key }) };
  await checkOwners(tx, owner.owners ?? [], args);
  const body = owner.related
    ? await runRelated(tx, owner.prepared, args)
    : (await runSingle(tx, owner.prepared, args))?.body;
  if (body === undefined) throw notFound(`${owner.root.name}(${owner.key ?? ""}) does not exist.`);
  if (body === null) throw notFound(`The ${owner.entity.name} the path leads to is not set.`);
  return (JSON.parse(body) as { Guid: string }).Guid;
}

/**
 * The body of an item POSTed to its owner's collection, with the owner set: the address names
 * it, so a body that names another one is refused (and a body that is no object is left to
 * validation to refuse)
 */
export function withOwner(body: unknown, inverse: string, guid: string): unknown {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return body;
  const given = (body as Record<string, unknown>)[inverse];
  if (given !== undefined && (typeof given !== "string" || given.toLowerCase() !== guid)) {
    throw validationError([
      {
        code: "InvalidValue",
        message: `${inverse} is the record the address names (${guid}); leave it out of the body.`,
        target: inverse,
      },
    ]);
  }
  return { ...body, [inverse]: guid };
}
