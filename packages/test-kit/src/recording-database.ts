/**
 * A database wrapper that records every statement it runs, for tests that count statements. The
 * statement each tenant transaction opens with (role and tenant settings) belongs to the
 * transaction, not to the work inside it: it travels as the transaction's set-up (sent with BEGIN
 * and the first statement) and is not recorded.
 */
import { type Database, toQuery, watchStatements } from "@bizdata/core";

/** `db` with every statement appended to `log` */
export const recording = (db: Database, log: string[]): Database =>
  watchStatements(db, (statements) => {
    for (const statement of statements) log.push(toQuery(statement).sql);
  });
