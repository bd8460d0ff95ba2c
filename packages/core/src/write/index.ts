export { checkNewRecords, storedRecordIssues } from "./check-stored.js";
export { defaultWriteLimits, type WriteLimits } from "./collection-limits.js";
export {
  isGuid,
  prefetchReferences,
  resolveAllReferences,
  resolveReferences,
} from "./natural-keys.js";
export { lockOwnerOf } from "./owned-item-writes.js";
export { type KeyLookups, ReadCache } from "./read-cache.js";
export {
  type CommitRejection,
  checkBeforeCommit,
  createRecord,
  createRecords,
  deleteRecord,
  saveChanges,
  saveVirtual,
  updateRecord,
  type WriteContext,
  type WriteOutcome,
} from "./write-record.js";
