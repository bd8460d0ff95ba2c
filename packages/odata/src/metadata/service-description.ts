/**
 * The service describing itself (spec 4.2; OData 4.01 §11.1): the service document at the root
 * and the CSDL document at `$metadata`, generated from the model and shaped by the tenant's
 * features, as results. What a host's routes answer and what a `$batch` part naming either gets.
 */
import type { Model } from "@bizdata/core";
import type { ODataResult } from "../service/odata-result.js";
import { metadataDocument, serviceDocumentText } from "./metadata-documents.js";
import { metadataFormat, metadataVersion } from "./metadata-negotiation.js";

const CONTENT_TYPES = { xml: "application/xml", json: "application/json" } as const;

export interface DescriptionRequest {
  /** `$format` as given */
  readonly format?: string | undefined;
  readonly accept?: string | undefined;
  /** `OData-MaxVersion` as sent */
  readonly maxVersion?: string | undefined;
  /** the tenant's features: a method the tenant would be refused is not offered */
  readonly features: ReadonlySet<string>;
  /** the service keeps a change log (its database's `store.changeLog`): `$metadata` says its sets track changes */
  readonly changeTracking?: boolean;
}

/** `$metadata` and the service document as resource paths (`$` also percent-encoded) */
export const describes = (path: string): "service" | "metadata" | undefined =>
  path === "" ? "service" : path === "$metadata" || path === "%24metadata" ? "metadata" : undefined;

/** the service document or the CSDL document (in the format and version negotiated) */
export function describeService(model: Model, what: "service" | "metadata", request: DescriptionRequest): ODataResult {
  if (what === "service") {
    const body = serviceDocumentText(model, { features: request.features, version: "4.0" });
    return { status: 200, headers: { "Content-Type": CONTENT_TYPES.json }, body };
  }
  const format = metadataFormat(request.format, request.accept);
  const version = metadataVersion(request.maxVersion);
  const body = metadataDocument(model, format, {
    features: request.features,
    version,
    ...(request.changeTracking !== undefined && { changeTracking: request.changeTracking }),
  });
  return { status: 200, headers: { "Content-Type": CONTENT_TYPES[format], "OData-Version": version }, body };
}
