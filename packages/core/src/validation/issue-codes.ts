/**
 * The stable codes of write-validation details, and how a valibot issue maps to one. valibot
 * names an issue by the action that raised it (`max_length`, `min_value`, …), except that every
 * custom check is just `check`; those that mean something other than a wrong type are made with
 * `coded`, which remembers the code under the check's requirement function.
 */
import * as v from "valibot";

export type WriteIssueCode =
  | "InvalidBody"
  | "UnknownProperty"
  | "ReadOnlyProperty"
  | "Required"
  | "InvalidType"
  | "InvalidValue"
  | "TooLong"
  | "TooShort"
  | "OutOfRange"
  | "TooPrecise";

const codeByType: ReadonlyMap<string, WriteIssueCode> = new Map([
  ["max_length", "TooLong"],
  ["min_length", "TooShort"],
  ["min_value", "OutOfRange"],
  ["max_value", "OutOfRange"],
  ["picklist", "InvalidValue"],
]);

const checkCodes = new WeakMap<object, WriteIssueCode>();

/** A valibot `check` whose failures carry `code` instead of the default `InvalidType`. */
export function coded<T>(code: WriteIssueCode, requirement: (input: T) => boolean, message: string) {
  checkCodes.set(requirement, code);
  return v.check(requirement, message);
}

/** Schema mismatches, formats and plain checks are all a wrong type for the client. */
export function issueCode(issue: v.BaseIssue<unknown>): WriteIssueCode {
  const requirement = issue.requirement;
  const byCheck = typeof requirement === "function" ? checkCodes.get(requirement) : undefined;
  return byCheck ?? codeByType.get(issue.type) ?? "InvalidType";
}
