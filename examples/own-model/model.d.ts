// the types of model.js, for the workspace's tests that serve it (the guides show model.js alone)
import type { EntityDefinition, Model } from "@bizdata/core";

export declare const Supplier: EntityDefinition;
export declare const Part: EntityDefinition;
export declare const model: Model;
