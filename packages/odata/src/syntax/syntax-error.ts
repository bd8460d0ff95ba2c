/**
 * A syntax error in one query option (or in the resource path). The host maps it to a 400
 * `QuerySyntaxError` (api-conventions "Reads": the message names the option and the character
 * position), so `position` is always a zero-based offset inside the text that was parsed and
 * `problem` is a short phrase a client can act on.
 */
export class QuerySyntaxError extends Error {
  override readonly name = "QuerySyntaxError";

  constructor(
    /** the option whose value is wrong: `$filter`, `$expand`, …, or `path` */
    readonly option: string,
    /** zero-based character offset inside that option's value, `0 <= position <= value.length` */
    readonly position: number,
    /** what is wrong, e.g. `expected ')' but found 'eq'` */
    readonly problem: string,
    options?: ErrorOptions,
  ) {
    super(`Syntax error in ${option} at position ${position}: ${problem}`, options);
  }
}

/** the ABNF has no BWS after an option's `=` (`EQ = "="`): a blank there is an error, not dropped */
export const BLANK_AFTER_EQUALS = "no blank is allowed after '='";
