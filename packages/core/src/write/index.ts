export { isGuid, prefetchReferences, type ReferenceCache, resolveReferences } from "./natural-keys.js";
export {
  type CommitRejection,
  checkBeforeCommit,
  createRecord,
  deleteRecord,
  saveChanges,
  saveVirtual,
  updateRecord,
  type WriteContext,
} from "./write-record.js";
