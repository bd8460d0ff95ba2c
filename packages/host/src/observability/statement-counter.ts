/**
 * The database as one request's work sees it when metrics are on: every statement, inside a
 * transaction or not, counts toward that request (statements per request show an N+1 pattern or
 * a plan that loads too much long before the latency does).
 */
import type { Database, Session, Statement } from "@bizdata/core";

const counted = (session: Session, counter: { statements: number }): Session => {
  const commitWith = session.commitWith;
  return {
    query: <R>(statement: Statement) => {
      counter.statements++;
      return session.query<R>(statement);
    },
    store: session.store,
    commitWith:
      commitWith &&
      ((statements) => {
        counter.statements += statements.length;
        return commitWith(statements);
      }),
  };
};

/** `db` with every statement counted in `counter` */
export function countStatements(db: Database, counter: { statements: number }): Database {
  return {
    driver: db.driver,
    query: counted(db, counter).query,
    store: db.store,
    transaction: (fn, options) => db.transaction((tx) => fn(counted(tx, counter)), options),
    close: () => db.close(),
    stats: () => db.stats(),
  };
}
