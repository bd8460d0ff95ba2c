/**
 * Context URL fragments (OData Protocol 4.01 §10), from the bound read, so they say what the
 * payload holds: the entity set, then the select-list — the selected properties and, for each
 * expanded navigation property, its own list in parentheses (§10.9, §10.10). The service's
 * default projection is the Guid alone (spec 2.1), so a list is never left empty (an empty list
 * would mean every structural property, which the payload does not hold): it names `Guid` when
 * nothing else is selected, and leaves the key out otherwise (`Product(SKU,Cost)`). Every entity
 * has an entity set named after it (edm-container.ts), owned items too, which holds their records
 * whatever address read them (`SalesOrder(…)/Details` as well as `SalesOrderDetail`). `$apply`
 * results list their groups, nested along navigation paths, and their aggregates (Data
 * Aggregation 4.0 §3: `Sales(Customer(Country),Total)`).
 */
import type { ApplyQuery } from "../bind/apply-query.js";
import type { ReadQuery } from "../bind/read-query.js";

/** the members of a read's select-list, without the parentheses */
function members(query: ReadQuery): string[] {
  const names = query.select.map((p) => p.name);
  const selected = names.length > 1 ? names.filter((n) => n !== "Guid") : names;
  const expanded = query.expand.map((e) =>
    e.kind === "collection"
      ? `${e.name}(${e.apply ? applyMembers(e.apply) : members(e.query).join(",")})`
      : `${e.path.join("/")}(${members(e.query).join(",")})`,
  );
  return [...selected, ...expanded];
}

/** `Product(SKU,Cost)` for a collection, `Product(SKU,Cost)/$entity` for one record */
export function readContext(query: ReadQuery, single: boolean): string {
  return `${query.entity.name}(${members(query).join(",")})${single ? "/$entity" : ""}`;
}

interface Node {
  readonly name: string;
  readonly children: Node[];
}

/** `Sales(Customer(Country),Total)`: groups nested along their navigation steps, then the aggregates */
export function applyContext(query: ApplyQuery): string {
  return `${query.entity.name}(${applyMembers(query)})`;
}

/** the select-list of an `$apply` result, without the parentheses: `Customer(Country),Total` */
function applyMembers(query: ApplyQuery): string {
  const root: Node = { name: "", children: [] };
  for (const group of query.groups) {
    const steps =
      group.expr.kind === "column"
        ? [...group.expr.via.map((v) => v.column.path.join("/")), group.expr.column.path.join("/")]
        : [group.path.join("/")];
    let node = root;
    for (const step of steps.slice(0, -1)) {
      let child = node.children.find((c) => c.name === step && c.children.length > 0);
      if (child === undefined) {
        child = { name: step, children: [] };
        node.children.push(child);
      }
      node = child;
    }
    node.children.push({ name: steps.at(-1)!, children: [] });
  }
  for (const aggregate of query.aggregates) root.children.push({ name: aggregate.alias, children: [] });
  const list = (node: Node): string =>
    node.children.map((c) => (c.children.length > 0 ? `${c.name}(${list(c)})` : c.name)).join(",");
  return list(root);
}
