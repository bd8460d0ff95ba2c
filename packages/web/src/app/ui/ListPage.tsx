/**
 * The list of an entity set: its plural label as the title, the line item's columns (or the
 * defaults), sort by a column's header, a filter per column, `$search` where the set is
 * searchable, pages of 20 with `$count`, and each row's first cell a link to its object page.
 */
import { useEffect, useId, useState } from "preact/hooks";
import { t } from "../i18n.js";
import { errorText } from "../service/http.js";
import { columnsOf, type EntityView, propertyAt } from "../service/model-view.js";
import { columnFilter, filterable, projection, sortPath, valueAt } from "../service/queries.js";
import { listHref, recordHref, useSession } from "./context.js";
import { formatValue } from "./format.js";

const PAGE = 20;

interface Query {
  readonly sort?: { readonly path: string; readonly descending: boolean };
  readonly filters: Readonly<Record<string, string>>;
  readonly search: string;
  readonly skip: number;
}

export function ListPage(props: { readonly entity: EntityView }) {
  const { http, model } = useSession();
  const { entity } = props;
  const set = entity.set!;
  const columns = columnsOf(entity);
  const [query, setQuery] = useState<Query>({ filters: {}, search: "", skip: 0 });
  const [page, setPage] = useState<{ rows: Record<string, any>[]; count: number } | undefined>();
  const [failure, setFailure] = useState<string | undefined>();
  const searchId = useId();

  useEffect(() => {
    const { select, expand } = projection(model, entity, columns);
    const filters = columns.flatMap((path) => {
      const found = propertyAt(model, entity, path);
      const text = query.filters[path];
      const filter = found && text !== undefined ? columnFilter(found.property, path, text) : undefined;
      return filter === undefined ? [] : [`(${filter})`];
    });
    const params = new URLSearchParams({
      $select: select,
      $count: "true",
      $top: String(PAGE),
      $skip: String(query.skip),
    });
    if (expand !== "") params.set("$expand", expand);
    if (filters.length > 0) params.set("$filter", filters.join(" and "));
    if (query.sort) params.set("$orderby", `${query.sort.path} ${query.sort.descending ? "desc" : "asc"}`);
    if (query.search.trim() !== "") params.set("$search", query.search.trim());
    let current = true;
    void http.request("GET", `/${set}?${params}`).then((answer) => {
      if (!current) return;
      if (answer.status !== 200) return setFailure(errorText(answer));
      setFailure(undefined);
      setPage({ rows: answer.body.value, count: answer.body["@odata.count"] ?? answer.body.value.length });
    });
    return () => {
      current = false;
    };
  }, [set, query]);

  const sortBy = (path: string) =>
    setQuery((q) => ({
      ...q,
      skip: 0,
      sort: { path, descending: q.sort?.path === path ? !q.sort.descending : false },
    }));
  const filterBy = (path: string, text: string) =>
    // the same filter again (a filter input settling on what it had) reads nothing anew
    setQuery((q) =>
      (q.filters[path] ?? "") === text ? q : { ...q, skip: 0, filters: { ...q.filters, [path]: text } },
    );

  const from = page === undefined || page.count === 0 ? 0 : query.skip + 1;
  const to = page === undefined ? 0 : query.skip + page.rows.length;
  return (
    <main>
      <h1>{entity.pluralLabel}</h1>
      {entity.searchable && (
        <search>
          <form
            class="search"
            onSubmit={(e) => {
              e.preventDefault();
              const text = new FormData(e.currentTarget).get("search");
              setQuery((q) => ({ ...q, skip: 0, search: String(text ?? "") }));
            }}
          >
            <label for={searchId}>{t("search")}</label>
            <input id={searchId} name="search" type="search" defaultValue={query.search} />
            <button type="submit">{t("search")}</button>
          </form>
        </search>
      )}
      {failure && (
        <p class="note error" role="alert">
          {failure}
        </p>
      )}
      <table class="list" aria-busy={page === undefined ? "true" : "false"}>
        <caption class="visually-hidden">{entity.pluralLabel}</caption>
        <thead>
          <tr>
            {columns.map((path) => {
              const found = propertyAt(model, entity, path);
              const label = found ? headingOf(found.first, found.property, path) : path;
              const sortable =
                found && !entity.nonSortable.has(path.split("/")[0]!) && found.property.kind !== "complex";
              const sorted =
                query.sort?.path === (found ? sortPath(found.property, path) : path) ? query.sort : undefined;
              return (
                <th
                  key={path}
                  scope="col"
                  aria-sort={sorted ? (sorted.descending ? "descending" : "ascending") : undefined}
                >
                  {sortable ? (
                    <button
                      type="button"
                      class="sort"
                      title={t("sortBy", { column: label })}
                      onClick={() => sortBy(sortPath(found.property, path))}
                    >
                      {label}
                      <span aria-hidden="true">{sorted ? (sorted.descending ? " ▼" : " ▲") : ""}</span>
                    </button>
                  ) : (
                    label
                  )}
                </th>
              );
            })}
          </tr>
          <tr class="filters">
            {columns.map((path) => {
              const found = propertyAt(model, entity, path);
              const label = found ? headingOf(found.first, found.property, path) : path;
              return (
                <td key={path}>
                  {found && filterable(entity, found.property, path) && (
                    <FilterInput
                      label={t("filter", { column: label })}
                      property={found.property}
                      onChange={(text) => filterBy(path, text)}
                    />
                  )}
                </td>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {page?.rows.map((row) => (
            <tr key={row.Guid}>
              {columns.map((path, i) => {
                const found = propertyAt(model, entity, path);
                const text = formatValue(found?.property, valueAt(row, path));
                return (
                  <td
                    key={path}
                    class={
                      found?.property.kind === "scalar" && /Int|Decimal|Double/.test(found.property.type)
                        ? "number"
                        : undefined
                    }
                  >
                    {i === 0 ? <a href={recordHref(set, row.Guid)}>{text || row.Title || row.Guid}</a> : text}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      {page !== undefined && page.rows.length === 0 && <p>{t("nothingFound")}</p>}
      {page !== undefined && (
        <nav class="pager" aria-label={entity.pluralLabel}>
          <button
            type="button"
            disabled={query.skip === 0}
            onClick={() => setQuery((q) => ({ ...q, skip: Math.max(0, q.skip - PAGE) }))}
          >
            {t("previous")}
          </button>
          <span role="status">{t("range", { from, to, count: page.count })}</span>
          <button
            type="button"
            disabled={to >= page.count}
            onClick={() => setQuery((q) => ({ ...q, skip: q.skip + PAGE }))}
          >
            {t("next")}
          </button>
        </nav>
      )}
      <p>
        <a href={listHref("")}>{t("home")}</a>
      </p>
    </main>
  );
}

/** a column's heading: the property's caption, after the reference's for a path through one */
function headingOf(first: { readonly label: string }, property: { readonly label: string }, path: string): string {
  return path.includes("/") ? `${first.label}: ${property.label}` : property.label;
}

/** a column's filter: a choice for booleans and enums, text for the rest (applied as one types, after a pause) */
function FilterInput(props: {
  readonly label: string;
  readonly property: import("../service/model-view.js").PropertyView;
  readonly onChange: (text: string) => void;
}) {
  const id = useId();
  const { property } = props;
  const [text, setText] = useState("");
  useEffect(() => {
    const timer = setTimeout(() => props.onChange(text), 300);
    return () => clearTimeout(timer);
  }, [text]);
  const choices =
    property.kind === "scalar" && property.type === "Edm.Boolean"
      ? [
          ["true", t("yes")],
          ["false", t("no")],
        ]
      : property.kind === "scalar" && property.members
        ? property.members.map((m) => [m, m])
        : undefined;
  return (
    <>
      <label for={id} class="visually-hidden">
        {props.label}
      </label>
      {choices ? (
        <select id={id} onChange={(e) => setText(e.currentTarget.value)}>
          <option value="">{t("any")}</option>
          {choices.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      ) : (
        <input id={id} type="search" size={8} value={text} onInput={(e) => setText(e.currentTarget.value)} />
      )}
    </>
  );
}
