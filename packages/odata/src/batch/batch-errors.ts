/**
 * The two batch error codes (api-conventions "Errors"): `InvalidBatch` for a malformed batch,
 * `BatchTooLarge` for one over the limits of spec 8. Messages say what is wrong and where.
 */
import { badRequest, type ServiceError } from "@bizdata/core";
import type { BatchLimits } from "../limits.js";

/** Client text quoted for a message, cut to a readable length. */
export const quote = (text: string): string => JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);

/** "part 3 (id "x")", or "part 3" when the part has no id (yet); parts count from 1 */
export const partLabel = (number: number, id?: string): string =>
  id === undefined ? `part ${number}` : `part ${number} (id ${quote(id)})`;

export const invalidBatch = (where: string, problem: string): ServiceError =>
  badRequest("InvalidBatch", `${where}: ${problem}`);

export const tooManyParts = (limits: BatchLimits): ServiceError =>
  badRequest(
    "BatchTooLarge",
    `The batch has more than ${limits.maxBatchParts} requests; split it into several batches.`,
  );

export const tooManyWrites = (where: string, group: string, limits: BatchLimits): ServiceError =>
  badRequest(
    "BatchTooLarge",
    `${where}: ${group} has more than ${limits.maxChangesetWrites} write requests; split it into several changesets.`,
  );

/** How a message names a group: multipart changesets by number, JSON groups by their id. */
export const groupLabel = (group: string): string => {
  const changeset = /^changeset:(\d+)$/.exec(group);
  return changeset ? `changeset ${changeset[1]}` : `atomicity group ${quote(group)}`;
};
