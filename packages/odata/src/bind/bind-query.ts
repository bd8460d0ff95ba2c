/**
 * Binds parsed query options to a read of one entity. Options this release does not compile yet
 * are refused with a clear 400 rather than ignored, so a client never gets a silently wrong answer.
 */
import { type AnyEntity, badRequest } from "@bizdata/core";
import type { QueryOptions } from "../syntax/ast.js";
import { bindSelect } from "./bind-select.js";
import type { ReadQuery } from "./read-query.js";

const notYet = ["filter", "orderby", "expand", "apply", "compute"] as const;

export function bindQuery(entity: AnyEntity, options: QueryOptions): ReadQuery {
  for (const name of notYet) {
    if (options[name] !== undefined) {
      throw badRequest("NotSupported", `$${name} is not supported on ${entity.name} yet.`, `$${name}`);
    }
  }
  return {
    entity,
    select: bindSelect(entity, options.select),
    count: options.count ?? false,
    ...(options.top !== undefined && { top: options.top }),
    ...(options.skip !== undefined && { skip: options.skip }),
  };
}
