/**
 * Starts, finds and resumes workflows (spec 4.6, api-conventions "Workflows"). `create` gives the
 * owner's handle; `findActive` and `resume` give handles that only resumed the workflow, whose
 * dispose does not close it (spec 3.1); `Workflow.close()` closes it from any handle.
 */
import { WorkflowError } from "./errors.js";
import { announcedIndex } from "./index-protocol.js";
import { isRecord, text } from "./json.js";
import { isSuccess, Transport, type TransportOptions, type WorkflowResponse } from "./transport.js";
import { Workflow } from "./workflow.js";

export interface WorkflowClientOptions extends TransportOptions {
  /** how often one call resyncs and is resent after a 409 (spec 7); default 3 */
  readonly maxResyncs?: number;
}

export class WorkflowClient {
  readonly #transport: Transport;
  readonly #maxResyncs: number;

  constructor(options: WorkflowClientOptions) {
    const maxResyncs = options.maxResyncs ?? 3;
    if (!Number.isSafeInteger(maxResyncs) || maxResyncs < 0) {
      throw new RangeError(`maxResyncs must be a whole number of at least 0, not ${maxResyncs}.`);
    }
    this.#transport = new Transport(options);
    this.#maxResyncs = maxResyncs;
  }

  /** `POST /api/workflow[?stagingKey=…]`: a new workflow and its owner's handle. */
  async create(options: { readonly stagingKey?: string } = {}): Promise<Workflow> {
    const query = options.stagingKey === undefined ? "" : `?stagingKey=${encodeURIComponent(options.stagingKey)}`;
    const response = await this.#transport.send("POST", `${this.#transport.basePath}/workflow${query}`);
    // the spec's create response has no nextIndex; api-conventions fix the first index at 1
    return this.#handle(response, "Create workflow", true, 1);
  }

  /** `GET /api/workflow/active?stagingKey=…`: the caller's open workflow with that key, or undefined (404). */
  async findActive(stagingKey: string): Promise<Workflow | undefined> {
    const response = await this.#transport.send(
      "GET",
      `${this.#transport.basePath}/workflow/active?stagingKey=${encodeURIComponent(stagingKey)}`,
    );
    return response.status === 404 ? undefined : this.#handle(response, "Find active workflow", false);
  }

  /** `GET /api/workflow/{id}`: a handle on a workflow by id; an unknown id throws (404). */
  async resume(workflowId: string): Promise<Workflow> {
    const response = await this.#transport.send(
      "GET",
      `${this.#transport.basePath}/workflow/${encodeURIComponent(workflowId)}`,
    );
    return this.#handle(response, "Resume workflow", false);
  }

  #handle(response: WorkflowResponse, action: string, owned: boolean, firstIndex?: number): Workflow {
    if (!isSuccess(response)) throw WorkflowError.fromResponse(response, action);
    const body = isRecord(response.body) ? response.body : {};
    const id = text(body.workflowId);
    const index = announcedIndex(response.headers) ?? wholeNumber(body.nextIndex) ?? firstIndex;
    if (id === undefined || index === undefined) {
      throw new WorkflowError(response, "InvalidResponse", `${action}: the response names no workflowId or nextIndex.`);
    }
    return new Workflow(this.#transport, id, index, owned, this.#maxResyncs);
  }
}

const wholeNumber = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
