export { isGuid, prefetchReferences, type ReferenceCache, resolveReferences } from "./natural-keys.js";
export {
  checkBeforeCommit,
  createRecord,
  deleteRecord,
  saveChanges,
  saveVirtual,
  updateRecord,
  type WriteContext,
} from "./write-record.js";
