/** Write validation derived from entity definitions (valibot schemas built once per entity). */
export {
  isCalendarDate,
  isDateTimeWithOffset,
  isDuration,
  isTimeOfDay,
  odataString,
  odataStringValue,
} from "./formats.js";
export type { WriteIssueCode } from "./issue-codes.js";
export { type ValidateOptions, validateWrite, type WriteMode, type WriteValidation } from "./validate-write.js";
