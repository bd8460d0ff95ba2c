import { readFileSync } from "node:fs";
import { applicationError, ERROR_CODES, ServiceError } from "@bizdata/core";
import { describe, expect, it } from "vitest";
import { ERRORS_PAGE, errorsPage } from "../scripts/errors-table.js";

describe("the error registry", () => {
  it("is what docs/guide/errors.md lists (regenerate with pnpm errors:table)", () => {
    expect(readFileSync(ERRORS_PAGE, "utf8")).toBe(errorsPage());
  });

  it("gives every code an error status and a one-line meaning", () => {
    for (const [code, { status, meaning }] of Object.entries(ERROR_CODES)) {
      expect(status, code).toBeGreaterThanOrEqual(400);
      expect(status, code).toBeLessThan(600);
      expect(meaning, code).toMatch(/^[A-Z$].*\.$/);
      expect(meaning, code).not.toMatch(/[\n|]/);
    }
  });

  it("sets a ServiceError's status from its code", () => {
    expect(new ServiceError("MethodNotAllowed", "m").status).toBe(405);
    expect(new ServiceError("FailedDependency", "m").status).toBe(424);
    expect(new ServiceError("ServiceUnavailable", "m").status).toBe(503);
  });

  it("answers an application's own code as a 400 with the usual body", () => {
    const error = applicationError("ReservedCode", "RESERVED is kept for the warehouse.", "Code");
    expect([error.status, error.code]).toEqual([400, "ReservedCode"]);
    expect(error.toJSON()).toEqual({
      error: { code: "ReservedCode", message: "RESERVED is kept for the warehouse.", target: "Code" },
    });
    // a JavaScript model's hook that names a code of its own is not a crash either
    expect(new ServiceError("NoSuchCode" as never, "m").status).toBe(400);
  });
});
