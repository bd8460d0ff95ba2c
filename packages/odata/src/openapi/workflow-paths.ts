/**
 * The workflow endpoints (spec 4.6-4.7, 7; api-conventions: Workflows): create, resume, find by
 * staging key, close, commit and the answer to a question. Any other operation becomes a step
 * of a workflow by sending Workflow-Id and Workflow-Index; commit and answers are always steps.
 */

import { commonSchemaRef, errorResponses, json, nextIndexHeader, parameterRef } from "./common-components.js";
import type { Parameter, PathItem, Responses, Schema } from "./openapi-types.js";

export const WORKFLOW_TAG = "Staged workflows";

const tags = [WORKFLOW_TAG];

const workflowState: Schema = {
  type: "object",
  required: ["workflowId", "nextIndex"],
  properties: {
    message: { type: "string" },
    workflowId: { type: "string", format: "uuid" },
    nextIndex: { type: "integer", minimum: 1, description: "The Workflow-Index its next step sends." },
  },
};

const found = (description: string): Responses => ({
  "200": { description, headers: nextIndexHeader, content: json(workflowState) },
  ...errorResponses({ notFound: true }),
});

const stepHeaders = [parameterRef("workflowIdRequired"), parameterRef("workflowIndexRequired")];

const idParameter = (name: string, description: string): Parameter => ({
  name,
  in: "path",
  required: true,
  description,
  schema: { type: "string", format: "uuid" },
});

export const workflowPaths: Record<string, PathItem> = {
  "/workflow": {
    post: {
      operationId: "workflow_create",
      tags,
      summary: "Start a workflow",
      description:
        "Its steps stage changes that plain requests do not see, until a commit stores them together. Abandoned workflows expire.",
      parameters: [
        {
          name: "stagingKey",
          in: "query",
          description: "Your name for what the workflow stages, to find it again (`GET /workflow/active`).",
          schema: { type: "string" },
        },
      ],
      responses: found("Started; its first step sends Workflow-Index 1."),
    },
  },
  "/workflow/active": {
    get: {
      operationId: "workflow_findActive",
      tags,
      summary: "Find your open workflow by staging key",
      parameters: [{ name: "stagingKey", in: "query", required: true, schema: { type: "string" } }],
      responses: found("The workflow and the index its next step sends."),
    },
  },
  "/workflow/{workflowId}": {
    parameters: [idParameter("workflowId", "The workflow's id.")],
    get: {
      operationId: "workflow_resume",
      tags,
      summary: "Resume a workflow",
      responses: found("The workflow and the index its next step sends."),
    },
    delete: {
      operationId: "workflow_close",
      tags,
      summary: "Close a workflow, discarding what it staged",
      responses: { "204": { description: "Closed." }, ...errorResponses({ notFound: true }) },
    },
  },
  "/workflow/commit": {
    post: {
      operationId: "workflow_commit",
      tags,
      summary: "Commit a workflow",
      description: "Runs save logic on the staged state and stores it in one transaction.",
      parameters: stepHeaders,
      responses: {
        "200": {
          description: "Stored.",
          headers: nextIndexHeader,
          content: json(commonSchemaRef("Message")),
        },
        "422": {
          description:
            "A question must be answered first: it is in `@workflow.userprompts`, answered by a POST to its choice's `href`.",
          headers: nextIndexHeader,
          content: json(commonSchemaRef("Message")),
        },
        ...errorResponses({ notFound: true, workflow: true }),
        "400": {
          description:
            "Nothing stored: the staged records cannot be saved (`ValidationError`), or records they changed were changed in the main data since (`StagedRecordChanged`).",
          headers: nextIndexHeader,
          content: json(commonSchemaRef("Error")),
        },
      },
    },
  },
  "/userprompts/{promptId}/answer/{choice}": {
    parameters: [
      idParameter("promptId", "The question's id."),
      {
        name: "choice",
        in: "path",
        required: true,
        description: "The key of the chosen answer.",
        schema: { type: "string" },
      },
      ...stepHeaders,
    ],
    post: {
      operationId: "workflow_answer",
      tags,
      summary: "Answer a question of a workflow",
      description: 'A method call that waited for the answer runs now when the choice is "accept".',
      responses: {
        "200": { description: "Recorded.", headers: nextIndexHeader, content: json(commonSchemaRef("Message")) },
        ...errorResponses({ notFound: true, workflow: true }),
      },
    },
  },
};
