/**
 * The database as the app sees it when metrics are on: every statement, inside a transaction or
 * not, counts toward the current request (statements per request show an N+1 pattern or a plan
 * that loads too much long before the latency does).
 */
import type { Database, Session, Statement } from "@bizdata/core";
import { currentRequest } from "./request-context.js";

const counted = (session: Session): Session => ({
  query: <R>(statement: Statement) => {
    const request = currentRequest();
    if (request !== undefined) request.statements++;
    return session.query<R>(statement);
  },
  store: session.store,
});

/** `db` with every statement counted in the current request's context */
export function countStatements(db: Database): Database {
  return {
    driver: db.driver,
    query: counted(db).query,
    store: db.store,
    transaction: (fn, options) => db.transaction((tx) => fn(counted(tx)), options),
    close: () => db.close(),
    stats: () => db.stats(),
  };
}
