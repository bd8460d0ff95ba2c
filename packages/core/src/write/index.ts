export { isGuid, prefetchReferences, type ReferenceCache, resolveReferences } from "./natural-keys.js";
export { createRecord, deleteRecord, updateRecord, type WriteContext } from "./write-record.js";
