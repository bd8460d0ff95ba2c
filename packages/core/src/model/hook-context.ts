/**
 * What business logic and save logic see. The write pipeline supplies an implementation; inside a
 * workflow it reads and writes the workflow's staged state instead of the main data.
 */
import type { UserPrompts } from "../prompts/prompts.js";
import type { ReadRecord } from "./typed-read.js";

export interface TenantInfo {
  readonly id: string;
  readonly features: ReadonlySet<string>;
}

export interface HookContext<R> {
  /** the record being written, as it stands now (owned collections included); logic may change it */
  readonly record: R;
  /** the record as stored before this write; null on create */
  readonly previous: Readonly<R> | null;
  /** the properties this write changed so far (a changed collection item marks the collection) */
  readonly changed: ReadonlySet<string>;
  /** for an item of an owned collection: the owner record as it stands now */
  readonly owner: Readonly<Record<string, unknown>> | null;
  readonly tenant: TenantInfo;
  readonly prompts: UserPrompts;
  /** reads another record of any entity by Guid, seeing the same state this write sees; typed when given the entity's definition */
  readonly read: ReadRecord;
}

export interface SaveContext<R> extends HookContext<R> {
  /** rejects the save with a validation detail on `property` (400 ValidationError, one detail each) */
  readonly reject: (property: string | null, message: string) => void;
}
