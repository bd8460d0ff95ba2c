/**
 * One FROM clause under construction: a table alias and the to-one joins its expressions need.
 * A navigation chain (`PrimaryContact/MailingAddress/Country`) becomes one LEFT JOIN per step,
 * shared by every expression that walks the same chain. Joins match on tenant and Guid, so they
 * use the primary key (architecture: joins, not LATERAL, for to-one paths).
 */
import { type AnyEntity, type ReadAs, relation, type StagedView, TENANT_COLUMN } from "@bizdata/core";
import { type SQL, sql } from "drizzle-orm";
import type { Navigation } from "../bind/bound-expr.js";

/** hands out table aliases unique within one statement, and says what its tables are */
export class AliasSource {
  private next = 0;
  /** inside a workflow: every entity is read through its staged overlay */
  constructor(readonly view?: StagedView) {}
  take(): string {
    return `t${this.next++}`;
  }
}

interface Joins {
  readonly byPath: Map<string, string>;
  /** the path key of each joined alias, so a chain continued from a joined record (an expanded
   * reference's own paths) finds the joins its prefix already made */
  readonly pathOf: Map<string, string>;
  readonly clauses: SQL[];
}

export class QueryScope {
  private constructor(
    readonly alias: string,
    readonly entity: AnyEntity,
    readonly aliases: AliasSource,
    private readonly joins: Joins,
    private readonly readAs: ReadAs,
  ) {}

  /**
   * A new FROM clause over `entity`. `readAs` says how its tables are read, which in a workflow
   * decides the form of their staged overlays (staged-view.ts): `indexed` for what reaches
   * records by key or stops early in index order (a page, the joins of a record read by its key,
   * expands), `scanned` for what reads all of them (a count, an aggregate).
   */
  static over(entity: AnyEntity, aliases: AliasSource, readAs: ReadAs = "indexed"): QueryScope {
    return new QueryScope(
      aliases.take(),
      entity,
      aliases,
      { byPath: new Map(), pathOf: new Map(), clauses: [] },
      readAs,
    );
  }

  /** the same FROM clause seen from a joined record (paths of an expanded reference start there) */
  at(alias: string, entity: AnyEntity): QueryScope {
    return new QueryScope(alias, entity, this.aliases, this.joins, this.readAs);
  }

  /** the alias of the record at the end of a navigation chain, joining what is missing */
  navigate(via: readonly Navigation[]): string {
    let alias = this.alias;
    let key = this.joins.pathOf.get(alias) ?? alias;
    for (const step of via) {
      key += `/${step.column.column}`;
      let joined = this.joins.byPath.get(key);
      if (joined === undefined) {
        joined = this.aliases.take();
        this.joins.byPath.set(key, joined);
        this.joins.pathOf.set(joined, key);
        const target = sql.identifier(joined);
        this.joins.clauses.push(
          sql` LEFT JOIN ${relation(step.target, this.aliases.view, this.readAs)} AS ${target} ON ${target}.${sql.identifier(TENANT_COLUMN)} = ${sql.identifier(alias)}.${sql.identifier(TENANT_COLUMN)} AND ${target}.guid = ${sql.identifier(alias)}.${sql.identifier(step.column.column)}`,
        );
      }
      alias = joined;
    }
    return alias;
  }

  /**
   * `FROM table AS alias LEFT JOIN …` with every join requested so far; `root` says how the first
   * table is read when it differs from the joined ones (a record by its key)
   */
  from(root: ReadAs = this.readAs): SQL {
    return sql`FROM ${relation(this.entity, this.aliases.view, root)} AS ${sql.identifier(this.alias)}${sql.join(this.joins.clauses)}`;
  }

  column(alias: string, column: string): SQL {
    return sql`${sql.identifier(alias)}.${sql.identifier(column)}`;
  }
}
