import { describe, expect, it } from "vitest";
import { isTransientDatabaseError, isUnreachableDatabaseError } from "./transient-errors.js";

const withCode = (code: unknown) => Object.assign(new Error("x"), { code });

describe("isTransientDatabaseError", () => {
  it("is true for an unreachable, restarting, saturated or too slow database", () => {
    for (const code of [
      "08006",
      "57P01",
      "57P03",
      "53300",
      "57014",
      "55P03",
      "25P03",
      "25006",
      "CONNECT_TIMEOUT",
      "CONNECTION_CLOSED",
      "CONNECTION_ENDED",
      "POOL_TIMEOUT",
      "ECONNREFUSED",
      "ECONNRESET",
    ])
      expect([code, isTransientDatabaseError(withCode(code))]).toEqual([code, true]);
  });

  it("is false for errors the request caused, and for anything without a code", () => {
    for (const code of ["23505", "22P02", "42601", "40001", "57P011", "25001", "ERR_INVALID_ARG_TYPE", 8])
      expect([code, isTransientDatabaseError(withCode(code))]).toEqual([code, false]);
    expect(isTransientDatabaseError(new Error("no code"))).toBe(false);
    expect(isTransientDatabaseError(null)).toBe(false);
    expect(isTransientDatabaseError("08006")).toBe(false);
  });
});

describe("isUnreachableDatabaseError", () => {
  it("is true for a server that cannot be reached or is shutting down, not for a busy or slow one", () => {
    for (const code of ["08006", "57P01", "57P03", "CONNECT_TIMEOUT", "CONNECTION_CLOSED", "ECONNREFUSED"])
      expect([code, isUnreachableDatabaseError(withCode(code))]).toEqual([code, true]);
    for (const code of ["53300", "57014", "55P03", "POOL_TIMEOUT", "40001", "42P01"])
      expect([code, isUnreachableDatabaseError(withCode(code))]).toEqual([code, false]);
  });
});
