/**
 * The results of statements sent together, in the order sent; the first failure (in that order)
 * is thrown: a failed set-up, then, rather than the error of the statement it aborted. Every one
 * is awaited, so none fails unhandled.
 */
export async function settled<T>(sent: readonly Promise<T>[]): Promise<T[]> {
  const outcomes = await Promise.allSettled(sent);
  const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === "rejected");
  if (failed !== undefined) throw failed.reason;
  return outcomes.map((o) => (o as PromiseFulfilledResult<T>).value);
}
