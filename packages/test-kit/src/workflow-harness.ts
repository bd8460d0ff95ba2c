/**
 * The workflow runtime at the service level, without a host: the OData and workflow services over
 * the test database, and callers that drive them with the URLs and headers a client sends. A
 * request is parsed as the host parses it (odataRequestOf), a step, commit or answer link runs
 * through the workflow service, and every result — or the `ServiceError` thrown — comes back as
 * an `Answer`: status, headers (`Workflow-Next-Index` among them) and the parsed body.
 */
import {
  type Database,
  forbidden,
  inTenant,
  type Model,
  migrate,
  ServiceError,
  tableQueries,
  tenantFeatureTable,
  tenantTable,
} from "@bizdata/core";
import { sampleModel } from "@bizdata/examples";
import {
  type Access,
  createODataService,
  defaultBodyLimits,
  errorResponse,
  type ODataResult,
  type ODataService,
  odataRequestOf,
} from "@bizdata/odata";
import {
  createWorkflowService,
  type Rights,
  type StepHeaders,
  WarmScopes,
  type WorkflowCaller,
  type WorkflowService,
  workflowTables,
} from "@bizdata/workflow";
import { expect } from "vitest";
import { testDatabase, uniqueTenant } from "./database.js";

const BASE = "/api";

/** a result, or the error a service threw, as a client sees it */
export interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** the JSON body parsed; undefined for none or a text one */
  readonly body: any;
  /** the body as sent (a `$count` read's number) */
  readonly text: string | undefined;
}

const answerOf = (result: ODataResult): Answer => ({
  status: result.status,
  headers: result.headers,
  body: result.headers["Content-Type"]?.startsWith("application/json") ? JSON.parse(result.body!) : undefined,
  text: result.body,
});

/**
 * what `result` answers, or the error it threw as a host maps it for `model` (an unexpected one
 * is the test's failure)
 */
async function answered(model: Model, result: Promise<ODataResult>): Promise<Answer> {
  try {
    return answerOf(await result);
  } catch (thrown) {
    const { status, error, headers, unexpected } = errorResponse(thrown, model);
    if (unexpected) throw thrown;
    return { status, headers, body: error.toJSON(), text: JSON.stringify(error) };
  }
}

/** a 403 for an access the caller's rights refuse (a host's names the right; the tests look at the status) */
const refusal = (access: Access) => forbidden(`this ${access.kind}`);

/** the parts of an answer link, `{base}/userprompts/{promptId}/answer/{choice}` */
const answerLink = (href: string) => {
  const [, promptId, choice] = /\/userprompts\/([^/]+)\/answer\/([^/?]+)$/.exec(href) ?? [];
  if (promptId === undefined || choice === undefined) throw new Error(`not an answer link: ${href}`);
  return { promptId, choice: decodeURIComponent(choice) };
};

export interface HarnessOptions {
  readonly model?: Model;
  /** the database to migrate and run the services on, e.g. one that records statements; the test database when left out */
  readonly db?: Database;
  readonly scopes?: WarmScopes;
  readonly ttlSeconds?: number;
}

/** the services over the test database (migrated for `model`, the examples' by default) */
export async function workflowHarness(options: HarnessOptions = {}) {
  const db = options.db ?? (await testDatabase());
  const model = options.model ?? sampleModel;
  await migrate(db, model, workflowTables);
  const odata: ODataService = createODataService({ db, model, basePath: BASE });
  const workflows: WorkflowService = createWorkflowService({
    db,
    model,
    planner: odata.planner,
    basePath: BASE,
    ttlSeconds: options.ttlSeconds ?? 600,
    scopes: options.scopes ?? new WarmScopes(),
  });

  /** a new tenant with `features` enabled */
  const tenant = async (label: string, features: readonly string[] = []) => {
    const id = uniqueTenant(label);
    await inTenant(db, id, async (tx) => {
      await tableQueries(tx).insert(tenantTable).values({ id, name: id });
      for (const feature of features)
        await tableQueries(tx).insert(tenantFeatureTable).values({ tenantId: id, feature });
    });
    return id;
  };

  return {
    db,
    odata,
    workflows,
    tenant,
    as: (tenantId: string, owner: string, may?: Rights) => client(tenantId, owner, may),
  };

  /** `owner` of `tenantId` with the rights `may` (every right when left out) */
  function client(tenantId: string, owner: string, may: Rights = () => true) {
    const caller: WorkflowCaller = { tenantId, owner, may };
    const authorize = (access: Access) => {
      if (!may(access)) throw refusal(access);
    };
    /** the service request for `method` `path` (under `/api`, with its query) as the host reads it */
    const request = (method: string, path: string, body: unknown, headers: Record<string, string>) =>
      odataRequestOf(
        new Request(`http://test${path}`, {
          method,
          headers: { ...(body !== undefined && { "Content-Type": "application/json" }), ...headers },
          ...(body !== undefined && { body: typeof body === "string" ? body : JSON.stringify(body) }),
        }),
        { basePath: BASE, tenantId, bodyLimits: defaultBodyLimits, authorize },
      );
    const stepped = async (run: () => Promise<{ result: ODataResult; nextIndex: number }>) => {
      const { result, nextIndex } = await run();
      return { ...result, headers: { ...result.headers, "Workflow-Next-Index": String(nextIndex) } };
    };

    return {
      tenantId,
      owner,
      caller,
      /** a plain request, outside any workflow */
      request: (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
        answered(model, odata.handle(request(method, path, body, headers))),
      create: (stagingKey?: string) => answered(model, workflows.create(caller, stagingKey ?? null)),
      resume: (id: string) => answered(model, workflows.resume(caller, id)),
      findActive: (stagingKey: string) => answered(model, workflows.findActive(caller, stagingKey)),
      close: (id: string) => answered(model, workflows.close(caller, id)),
      /** `method` `path` as the step `at` names (`Workflow-Id`, `Workflow-Index` as sent), with any more `headers` */
      step: (at: StepHeaders, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
        answered(
          model,
          stepped(() => workflows.step(caller, at, (unit) => odata.handle(request(method, path, body, headers), unit))),
        ),
      commit: (at: StepHeaders | undefined) => answered(model, workflows.commit(caller, at)),
      /** the answer link `href` followed as a step at `at` */
      answer: (at: StepHeaders | undefined, href: string) => {
        const { promptId, choice } = answerLink(href);
        return answered(model, workflows.answer(caller, at, promptId, choice));
      },
    };
  }
}

export type Harness = Awaited<ReturnType<typeof workflowHarness>>;
export type Client = ReturnType<Harness["as"]>;

/**
 * One workflow driven step by step, keeping the index the way a client does: every step checks
 * that the answer carries `Workflow-Next-Index` and sends it next.
 */
export async function workflow(who: Client, stagingKey?: string) {
  const created = await who.create(stagingKey);
  expect(created.status).toBe(200);
  expect(created.headers["Workflow-Next-Index"]).toBe("1");
  expect(created.body).toMatchObject({ message: expect.any(String), workflowId: expect.any(String), nextIndex: 1 });
  const id = created.body.workflowId as string;
  let index = 1;
  const at = (i: number): StepHeaders => ({ workflowId: id, index: String(i) });
  const kept = (what: string) => (answer: Answer) => {
    const next = answer.headers["Workflow-Next-Index"];
    expect(next, `${what} → ${answer.status}`).toBeDefined();
    index = Number(next);
    return answer;
  };
  return {
    id,
    get index() {
      return index;
    },
    /** a step at the next index (or `i`), with any more `headers` (If-Match, Accept) */
    step: (method: string, path: string, body?: unknown, i = index, headers: Record<string, string> = {}) =>
      who.step(at(i), method, path, body, headers).then(kept(`${method} ${path}`)),
    commit: (i = index) => who.commit(at(i)).then(kept("commit")),
    /** the answer link `href` followed at the next index (or `i`) */
    answer: (href: string, i = index) => who.answer(at(i), href).then(kept(`answer ${href}`)),
  };
}
