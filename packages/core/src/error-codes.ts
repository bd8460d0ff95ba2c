/**
 * Every error code the service answers with, once: its HTTP status and what it means (PostgREST's
 * `Error.hs`: code, status and meaning in one table). A throw site names a code and says what is
 * wrong and where; the status comes from here, so no stage chooses one, and a code that is not in
 * this table does not compile. `docs/guide/errors.md` is generated from it (`pnpm errors:table`).
 * Codes are grouped by where a client meets them; a code is public API and is never renamed.
 */

interface ErrorCodeEntry {
  readonly status: number;
  readonly meaning: string;
}

export const ERROR_CODES = {
  // the request's body
  InvalidBody: { status: 400, meaning: "The body is not of the shape the request takes (not UTF-8, not an object)." },
  EmptyBody: { status: 400, meaning: "The request needs a JSON body and has none." },
  InvalidJson: { status: 400, meaning: "The body is not valid JSON; the message gives the position." },
  DuplicateJsonKey: { status: 400, meaning: "An object of the body names the same property twice." },
  JsonTooDeep: { status: 400, meaning: "The body nests arrays and objects deeper than the limit." },
  NumberNotExact: { status: 400, meaning: "A number cannot be represented exactly; send it as a string." },
  PayloadTooLarge: { status: 413, meaning: "The body is larger than the limit for the request." },
  UnsupportedMediaType: { status: 415, meaning: "The body is not sent as application/json in UTF-8." },

  // writes
  ValidationError: { status: 400, meaning: "The record cannot be saved; one detail per offending property." },
  ReferenceNotFound: { status: 400, meaning: "A natural-key reference matches no record." },
  ReferenceAmbiguous: { status: 400, meaning: "A natural-key reference matches several records; use the Guid." },
  DuplicateKey: { status: 400, meaning: "Another record already has this natural key or Guid." },
  RecordInUse: { status: 400, meaning: "The record is referenced by others, or references one that does not exist." },
  InvalidValue: { status: 400, meaning: "A value is out of range for its property or for the operation on it." },
  CollectionTooLarge: { status: 400, meaning: "A write would leave a collection with more items than its limit." },
  PreconditionFailed: { status: 412, meaning: "If-Match or If-None-Match does not hold for the record's version." },

  // addressing a resource
  NotFound: { status: 404, meaning: "No such entity set, record, member, method, workflow or question." },
  InvalidKey: { status: 400, meaning: "A key is not a Guid, or not the Guid property." },
  InvalidPath: { status: 400, meaning: "The resource path is not one the service has (e.g. $count after a record)." },
  MethodNotAllowed: { status: 405, meaning: "The HTTP method does not apply to this resource or method." },

  // query options and answers
  QuerySyntaxError: {
    status: 400,
    meaning: "A query option does not parse; the message names the option and position.",
  },
  UnknownProperty: { status: 400, meaning: "A query option names a property the entity does not have." },
  VirtualPropertyNotAllowed: { status: 400, meaning: "A computed property is used where only stored ones apply." },
  InvalidExpression: { status: 400, meaning: "An expression in a query option is not one the service evaluates." },
  NotSelectable: { status: 400, meaning: "$select names a collection or a path that is not a property." },
  NotExpandable: { status: 400, meaning: "$expand names a value rather than a related entity." },
  InvalidExpand: { status: 400, meaning: "$expand expands the same property twice." },
  ExpandTooDeep: { status: 400, meaning: "$expand nests deeper than the limit." },
  ExpandTooWide: { status: 400, meaning: "$expand names more items at one level than the limit." },
  InvalidSearch: { status: 400, meaning: "A $search term has nothing to search for." },
  NotSearchable: { status: 400, meaning: "$search on an entity without searchable properties." },
  NotSupported: { status: 400, meaning: "A valid request the service does not support in this combination." },
  InvalidHeader: { status: 400, meaning: "A request header's value is malformed." },
  UnsupportedFormat: { status: 400, meaning: "$format asks for a format the resource is not served in." },
  NotAcceptable: { status: 406, meaning: "Accept or $format asks for no format the service answers in." },
  AnswerTooLarge: { status: 400, meaning: "The answer would be larger than the limit; ask for less." },

  // change tracking
  InvalidDeltaToken: {
    status: 400,
    meaning: "A $deltatoken or $skiptoken is malformed, or belongs to another query than the one it is sent with.",
  },
  DeltaTokenExpired: {
    status: 410,
    meaning: "A delta token is older than the change log keeps changes; read the collection again to start over.",
  },

  // webhooks
  WebhookLimitReached: {
    status: 400,
    meaning: "The tenant has as many webhook subscriptions as the host allows (WEBHOOKS_PER_TENANT).",
  },
  DeliveryPending: { status: 400, meaning: "A webhook delivery that is still pending cannot be sent again yet." },

  // the change stream ($changes)
  InvalidEventId: {
    status: 400,
    meaning: "A Last-Event-ID (or lastEventId) is not a position the change stream wrote.",
  },
  EventIdExpired: {
    status: 410,
    meaning: "A change stream position is older than the change log keeps changes; resync, then stream anew.",
  },
  UnknownEntitySet: {
    status: 400,
    meaning: "A list of entity sets (the change stream's entities) names none of the model's.",
  },
  TooManyStreams: { status: 429, meaning: "The user or the tenant has as many change streams open as a host allows." },

  // methods
  InvalidMethodCall: { status: 400, meaning: "A method is called in the wrong form (static or bound, parentheses)." },
  MissingParameter: { status: 400, meaning: "A required parameter or parameter alias has no value." },
  InvalidParameter: { status: 400, meaning: "A method argument is not of its parameter's type." },
  UnknownParameter: { status: 400, meaning: "A method is given an argument it has no parameter for." },
  MethodDisabled: { status: 400, meaning: "The method is disabled for this record (DisableIf)." },
  MethodAborted: { status: 400, meaning: "The method aborted (AbortIf, or a subscriber's abort)." },
  MethodUnavailable: { status: 403, meaning: "The method is not available for this tenant's features." },
  MethodNotImplemented: { status: 501, meaning: "The method is declared but has no subscriber." },

  // $batch
  InvalidBatch: { status: 400, meaning: "The batch or one of its parts is malformed or addresses no resource." },
  BatchTooLarge: { status: 400, meaning: "The batch, a changeset or its answers pass their limit." },
  FailedDependency: { status: 424, meaning: "A batch part was not run because one it depends on failed." },

  // workflows
  WorkflowIndexRequired: { status: 400, meaning: "A workflow step lacks the Workflow-Id or Workflow-Index header." },
  WorkflowIndexConflict: { status: 409, meaning: "Workflow-Index is not the workflow's next step." },
  StagedRecordChanged: {
    status: 400,
    meaning: "A commit found records the workflow changed changed in the main data.",
  },
  InvalidChoice: { status: 400, meaning: "The answer is not one of the question's choices." },
  AlreadyAnswered: { status: 400, meaning: "The question has already been answered." },

  // sign-in and access
  Unauthorized: { status: 401, meaning: "No valid token, or wrong credentials; WWW-Authenticate says how." },
  Forbidden: { status: 403, meaning: "The caller's roles or token scopes do not allow the action." },
  TooManyAttempts: { status: 429, meaning: "Too many failed sign-ins; Retry-After says when to try again." },
  RateLimited: { status: 429, meaning: "A token or client address is over its request rate; Retry-After says when." },
  TenantBusy: { status: 429, meaning: "The tenant holds its share of the database work and its queue is full." },

  // the MCP tools
  InvalidArguments: { status: 400, meaning: "An MCP tool's arguments do not match its input schema." },
  NoWorkflow: {
    status: 400,
    meaning: "An MCP tool names no workflow and its connection holds none; name one or stage a change.",
  },
  KeyAmbiguous: { status: 400, meaning: "An MCP tool's natural key matches several records; give the Guid." },

  // the host
  InternalError: { status: 500, meaning: "An unexpected error; its details are in the host's log only." },
  NotImplemented: { status: 501, meaning: "The host cannot serve this here (the OAuth server outside node-server)." },
  ServiceUnavailable: { status: 503, meaning: "The database is unavailable or its schema is not migrated; retry." },
} as const satisfies Record<string, ErrorCodeEntry>;

/** a code of the registry: a throw site with any other string fails `tsc` */
export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * The HTTP status `code` stands for. A code outside the registry is an application's own
 * (applicationError, or a hook of a JavaScript model): a 400, the client's to fix, never a crash.
 */
export const statusOf = (code: string): number => (ERROR_CODES as Record<string, ErrorCodeEntry>)[code]?.status ?? 400;
