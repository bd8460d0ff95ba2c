/**
 * Writes docs/guide/errors.md, the table of every error code, from the registry
 * (packages/core/src/error-codes.ts): `pnpm errors:table`. test/errors-table.test.ts fails when
 * the file and the registry differ, so a code added, renamed or given another status shows there.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ERROR_CODES } from "@bizdata/core";

export const ERRORS_PAGE = fileURLToPath(new URL("../docs/guide/errors.md", import.meta.url));

/** the page's Markdown: the codes by status, then by name */
export function errorsPage(): string {
  const rows = Object.entries(ERROR_CODES)
    .sort(([a, x], [b, y]) => x.status - y.status || a.localeCompare(b))
    .map(([code, { status, meaning }]) => `| \`${code}\` | ${status} | ${meaning} |`);
  return [
    "# Errors",
    "",
    "<!-- generated from packages/core/src/error-codes.ts by `pnpm errors:table`; do not edit by hand -->",
    "",
    'Every error is answered with the same body, `{"error":{"code","message","target","details"}}`:',
    "`code` is one of the codes below and never changes for a kind of error; `message` says what is",
    "wrong and where; `target` names the property, option, header or parameter at fault; `details`",
    "lists one entry per offending property (their codes, such as `InvalidType` or `Required`, name",
    "the problem with that property). The status is always the one the code stands for.",
    "",
    "| Code | Status | Meaning |",
    "| --- | --- | --- |",
    ...rows,
    "",
  ].join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(ERRORS_PAGE, errorsPage());
  console.log(`wrote ${ERRORS_PAGE}`);
}
