/**
 * The tools a caller sees: the model's tools for the tenant's features (a method whose
 * subscribers all need features the tenant lacks is left out, as in `$metadata`), narrowed to what
 * the caller's roles and scopes allow, with the same checks (`can`, `canCall`) the API makes on
 * every request. One catalog per feature set, built on first use.
 */
import type { Model } from "@bizdata/core";
import { buildEdm } from "@bizdata/odata";
import { can, canCall, type Roles } from "../auth/permissions.js";
import type { Principal } from "../auth/principal.js";
import { EdmLookup } from "./edm-lookup.js";
import { type ModelTool, modelTools, type ToolAction, type ToolSettings } from "./model-tools.js";
import { type ArgumentCheck, argumentCheck } from "./tool-arguments.js";

export interface Catalog {
  readonly lookup: EdmLookup;
  readonly tools: readonly ModelTool[];
  readonly byName: ReadonlyMap<string, ModelTool>;
  /** the arguments' problems against the tool's input schema, or undefined when they fit */
  problems(tool: ModelTool, args: unknown): string | undefined;
}

export class ToolCatalog {
  readonly #catalogs = new Map<string, Catalog>();

  constructor(
    private readonly model: Model,
    private readonly settings: ToolSettings & {
      /** the host keeps a change log: the `$metadata` resource says its sets track changes, as the API's does */
      readonly changeTracking: boolean;
    },
  ) {}

  forFeatures(features: ReadonlySet<string>): Catalog {
    const key = [...features].sort().join(",");
    let catalog = this.#catalogs.get(key);
    if (catalog === undefined) {
      catalog = this.#build(features);
      this.#catalogs.set(key, catalog);
    }
    return catalog;
  }

  #build(features: ReadonlySet<string>): Catalog {
    const lookup = new EdmLookup(buildEdm(this.model, { features, changeTracking: this.settings.changeTracking }));
    const tools = modelTools(this.model, lookup, this.settings);
    const checks = new Map<ModelTool, ArgumentCheck>();
    return {
      lookup,
      tools,
      byName: new Map(tools.map((t) => [t.tool.name, t])),
      problems: (tool, args) => {
        // compiled on a tool's first call: most tools of a catalog are never called
        const check = checks.get(tool) ?? argumentCheck(tool.tool.inputSchema);
        checks.set(tool, check);
        return check(args);
      },
    };
  }
}

/** a tool that changes data (staged in a workflow) */
export const isWrite = (action: ToolAction): boolean =>
  action.kind === "create" ||
  action.kind === "update" ||
  action.kind === "delete" ||
  (action.kind === "call" && action.type === "modify");

/** whether the caller may use an entity or method tool: the API's own permission checks */
function mayUse(roles: Roles, principal: Principal, action: ToolAction): boolean {
  switch (action.kind) {
    case "query":
    case "get":
      return can(roles, principal, "read", action.entitySet);
    case "create":
    case "update":
    case "delete":
      return can(roles, principal, action.kind, action.entitySet);
    case "call":
      return canCall(roles, principal, action.entity, action.method, action.type === "read");
    case "workflow":
      return false;
  }
}

/** the tools of `catalog` the caller may use; the workflow tools come with the right to change something */
export function permittedTools(catalog: Catalog, roles: Roles, principal: Principal): ModelTool[] {
  const allowed = catalog.tools.filter((t) => mayUse(roles, principal, t.action));
  const writes = allowed.some((t) => isWrite(t.action));
  return writes ? [...allowed, ...catalog.tools.filter((t) => t.action.kind === "workflow")] : allowed;
}
