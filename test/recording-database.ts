/**
 * A database wrapper that records every statement it runs, for tests that count statements. The
 * statement each tenant transaction opens with (role and tenant settings) belongs to the
 * transaction, not to the work inside it: it travels as the transaction's set-up (sent with BEGIN
 * and the first statement) and is not recorded.
 */
import { type Database, type Session, type Statement, toQuery } from "@bizdata/core";

/** `db` with every statement appended to `log` */
export function recording(db: Database, log: string[]): Database {
  const record = (session: Session): Session => {
    const commitWith = session.commitWith;
    return {
      query: <R>(statement: Statement) => {
        log.push(toQuery(statement).sql);
        return session.query<R>(statement);
      },
      store: session.store,
      commitWith:
        commitWith &&
        ((statements) => {
          for (const statement of statements) log.push(toQuery(statement).sql);
          return commitWith(statements);
        }),
    };
  };
  return {
    driver: db.driver,
    query: (statement) => record(db).query(statement),
    store: db.store,
    transaction: (fn, options) => db.transaction((tx) => fn(record(tx)), options),
    close: () => db.close(),
    stats: () => db.stats(),
  };
}
