/**
 * One FROM clause under construction: a table alias and the to-one joins its expressions need.
 * A navigation chain (`PrimaryContact/MailingAddress/Country`) becomes one LEFT JOIN per step,
 * shared by every expression that walks the same chain. Joins match on tenant and Guid, so they
 * use the primary key (architecture: joins, not LATERAL, for to-one paths).
 */
import { type AnyEntity, relation, type StagedView, TENANT_COLUMN } from "@bizdata/core";
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
  ) {}

  /** a new FROM clause over `entity` */
  static over(entity: AnyEntity, aliases: AliasSource): QueryScope {
    return new QueryScope(aliases.take(), entity, aliases, { byPath: new Map(), pathOf: new Map(), clauses: [] });
  }

  /** the same FROM clause seen from a joined record (paths of an expanded reference start there) */
  at(alias: string, entity: AnyEntity): QueryScope {
    return new QueryScope(alias, entity, this.aliases, this.joins);
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
          sql` LEFT JOIN ${relation(step.target, this.aliases.view, "probed")} AS ${target} ON ${target}.${sql.identifier(TENANT_COLUMN)} = ${sql.identifier(alias)}.${sql.identifier(TENANT_COLUMN)} AND ${target}.guid = ${sql.identifier(alias)}.${sql.identifier(step.column.column)}`,
        );
      }
      alias = joined;
    }
    return alias;
  }

  /** `FROM table AS alias LEFT JOIN …` with every join requested so far */
  from(): SQL {
    return sql`FROM ${relation(this.entity, this.aliases.view)} AS ${sql.identifier(this.alias)}${sql.join(this.joins.clauses)}`;
  }

  column(alias: string, column: string): SQL {
    return sql`${sql.identifier(alias)}.${sql.identifier(column)}`;
  }
}
