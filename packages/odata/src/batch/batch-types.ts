/**
 * The `$batch` wire formats as values (api-conventions "Batch"): OData JSON Format 4.01 §19 and
 * the OData 4.0 `multipart/mixed` format (Protocol §11.7). Parsing yields a flat list of parts;
 * a changeset becomes an `atomicityGroup`, so the executor sees one shape for both formats.
 */

export type BatchMethod = "GET" | "POST" | "PATCH" | "DELETE";

export interface BatchPart {
  /** request id (JSON) or Content-ID (multipart); generated "p<n>" (n = 1-based part number) when absent */
  readonly id: string;
  readonly method: BatchMethod;
  /** as given: relative ("Product(…)?$select=…", "$1/Details"), absolute path ("/api/Product") or absolute URL */
  readonly url: string;
  /** lower-cased names; multipart: holds `content-id` exactly when the client sent one */
  readonly headers: Readonly<Record<string, string>>;
  /** parsed JSON body (JSON format: the "body" value; multipart: parsed from the part's JSON text) */
  readonly body?: unknown;
  /** multipart: the body's JSON text, trimmed, for exact-number checks by the caller */
  readonly bodyText?: string;
  /** JSON: as given; multipart: "changeset:<n>" (n = 1-based changeset number) */
  readonly atomicityGroup?: string;
  /** ids (or, JSON only, atomicity groups) of earlier requests; includes a `$<id>` URL reference */
  readonly dependsOn: readonly string[];
}

export interface ParsedBatch {
  readonly format: "json" | "multipart";
  readonly parts: readonly BatchPart[];
}

export interface BatchResponsePart {
  readonly id: string;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** response body text (JSON or text/plain), copied as is */
  readonly body?: string;
  readonly atomicityGroup?: string;
}
