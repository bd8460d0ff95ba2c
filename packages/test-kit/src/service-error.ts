import { ServiceError } from "@bizdata/core";
import { expect } from "vitest";

/** the ServiceError a promise rejects with; fails the test when it resolves or rejects otherwise */
export async function rejection(promise: Promise<unknown>): Promise<ServiceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ServiceError);
  return error as ServiceError;
}
