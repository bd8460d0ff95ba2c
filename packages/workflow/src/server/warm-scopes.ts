/**
 * Warm workflow scopes (spec 8, `WorkflowOptions.WarmWorkflowScopes`): between back-to-back
 * requests of one workflow on the same host, what the previous step learnt is kept in memory.
 * A scope holds only facts that cannot go stale — answers to questions, which never change once
 * given — and it is used only when the stored index shows that the last step was this host's;
 * otherwise it is dropped. Every step still writes its staged state durably, so correctness is
 * the same with scopes on or off.
 */
import { BoundedMap } from "@bizdata/core";

export interface WarmScope {
  /** the index the next step must carry if no other host stepped in between */
  nextIndex: number;
  /** answers by question key and group */
  readonly answers: Map<string, string>;
}

export interface WarmScopeOptions {
  /** unset: on, except when NODE_ENV is "development" */
  readonly enabled?: boolean;
  readonly capacity?: number;
}

export class WarmScopes {
  private readonly scopes: BoundedMap<string, WarmScope>;
  readonly enabled: boolean;

  constructor(options: WarmScopeOptions = {}) {
    this.enabled = options.enabled ?? process.env.NODE_ENV !== "development";
    this.scopes = new BoundedMap(options.capacity ?? 10_000);
  }

  /** the scope for a step at `storedIndex`, fresh when another host (or nothing) came before */
  enter(workflowId: string, storedIndex: number): WarmScope | undefined {
    if (!this.enabled) return undefined;
    let scope = this.scopes.get(workflowId);
    if (scope === undefined || scope.nextIndex !== storedIndex) {
      scope = { nextIndex: storedIndex, answers: new Map() };
      this.scopes.set(workflowId, scope);
    }
    return scope;
  }

  /** the step advanced the index on this host */
  advanced(workflowId: string, nextIndex: number): void {
    const scope = this.scopes.get(workflowId);
    if (scope !== undefined) scope.nextIndex = nextIndex;
  }

  forget(workflowId: string): void {
    this.scopes.delete(workflowId);
  }
}
