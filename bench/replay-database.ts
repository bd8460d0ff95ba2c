/**
 * A database that answers from memory what a real one answered, so that the same code can be
 * measured with and without the database under it (layers.ts). `recordAnswers` wraps a database
 * and keeps the rows each statement's text returned; `replaying` answers every statement with the
 * rows its text returned then (none for one it did not see, such as an insert), at once, without
 * I/O, and runs a transaction's work on itself.
 */
import { type Database, type RecordStore, type Row, type Session, type Statement, toQuery } from "@bizdata/core";

/** rows by statement text */
export type Answers = Map<string, readonly Row[]>;

export function recordAnswers(db: Database, answers: Answers): Database {
  const recorded = (session: Session): Session => ({
    query: async <R>(statement: Statement) => {
      const rows = await session.query<R>(statement);
      answers.set(toQuery(statement).sql, rows as Row[]);
      return rows;
    },
    store: session.store,
    commitWith: session.commitWith,
  });
  return { ...db, ...recorded(db), transaction: (fn, options) => db.transaction((tx) => fn(recorded(tx)), options) };
}

export function replaying(store: RecordStore, answers: Answers): Database {
  const session: Session = {
    query: async <R>(statement: Statement) => (answers.get(toQuery(statement).sql) ?? []) as R[],
    store,
    commitWith: async () => {},
  };
  return {
    driver: "postgres",
    ...session,
    transaction: (fn) => fn(session),
    close: async () => {},
    stats: () => ({ size: 1, busy: 0, waiting: 0 }),
  };
}
