/**
 * The documents a service describes itself with, generated from the model and kept: a model
 * does not change while it is served, so each document is built once per (model, the features
 * that decide which methods show, format, version) and then served as the same string.
 */
import type { Model } from "@bizdata/core";
import { buildEdm } from "./build-edm.js";
import { renderCsdlJson } from "./csdl-json.js";
import { renderCsdlXml } from "./csdl-xml.js";
import type { EdmVersion } from "./edm.js";
import type { MetadataFormat } from "./metadata-negotiation.js";
import { serviceDocument } from "./service-document.js";

export interface MetadataRequest {
  /** the tenant's features */
  readonly features: ReadonlySet<string>;
  readonly version: EdmVersion;
  /** the service keeps a change log: its sets say they track changes (build-edm.ts) */
  readonly changeTracking?: boolean;
}

/** at most this many documents per model; 2^(features the model names) × formats × versions in practice */
const MAX_DOCUMENTS = 256;

const documents = new WeakMap<Model, Map<string, string>>();
const featuresNamed = new WeakMap<Model, readonly string[]>();

/** the features any subscriber of the model belongs to: only they change a document */
export function namedFeatures(model: Model): readonly string[] {
  let named = featuresNamed.get(model);
  if (named === undefined) {
    const all = new Set<string>();
    for (const entity of model.entities.values()) {
      for (const method of Object.values(entity.methods)) {
        for (const s of model.subscribers(method)) if (s.feature !== undefined) all.add(s.feature);
      }
    }
    named = [...all].sort();
    featuresNamed.set(model, named);
  }
  return named;
}

function cached(model: Model, kind: string, request: MetadataRequest, build: () => string): string {
  const features = namedFeatures(model).filter((f) => request.features.has(f));
  const key = JSON.stringify([kind, request.version, request.changeTracking === true, features]);
  let byKey = documents.get(model);
  if (byKey === undefined) {
    byKey = new Map();
    documents.set(model, byKey);
  }
  let document = byKey.get(key);
  if (document === undefined) {
    document = build();
    if (byKey.size >= MAX_DOCUMENTS) byKey.clear();
    byKey.set(key, document);
  }
  return document;
}

/**
 * `$metadata` as one tenant sees it, as CSDL XML or CSDL JSON text.
 *
 * @example
 * metadataDocument(model, "xml", { features: tenant.features, version: "4.0" });
 */
export function metadataDocument(model: Model, format: MetadataFormat, request: MetadataRequest): string {
  return cached(model, format, request, () => {
    const edm = buildEdm(model, request);
    return format === "xml" ? renderCsdlXml(edm) : JSON.stringify(renderCsdlJson(edm));
  });
}

/** the service document (JSON text) as one tenant sees it */
export function serviceDocumentText(model: Model, request: MetadataRequest): string {
  return cached(model, "service", request, () => JSON.stringify(serviceDocument(buildEdm(model, request))));
}
