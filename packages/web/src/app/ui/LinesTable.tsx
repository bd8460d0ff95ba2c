/**
 * An owned collection as a table: the item's line item columns (or its single values), each
 * line's prompts beside it; while editing, each editable cell an input staged on change, a
 * button per line to remove it, and a form to add one (references by natural key).
 */
import { useId, useState } from "preact/hooks";
import { t } from "../i18n.js";
import { type EntityView, type PropertyView, propertyAt, referenceKeyText } from "../service/model-view.js";
import { notesAt, type Prompts } from "../service/prompts.js";
import { itemColumns, valueAt } from "../service/queries.js";
import { useSession } from "./context.js";
import { formatValue } from "./format.js";
import { Notes } from "./Notes.js";
import { ReferenceInput, ScalarInput } from "./ValueInput.js";

type Line = Record<string, any>;

export function LinesTable(props: {
  readonly property: Extract<PropertyView, { kind: "collection" }>;
  readonly lines: readonly Line[];
  readonly editing: boolean;
  readonly prompts: Prompts;
  readonly onChangeLine: (guid: string, body: Record<string, unknown>) => void;
  /** the collection as it is to become: kept lines by Guid, new ones as bodies */
  readonly onLines: (lines: readonly Record<string, unknown>[]) => void;
}) {
  const { model } = useSession();
  const { property } = props;
  const item = model.entities.get(property.target);
  const headingId = useId();
  if (item === undefined) return null;
  const columns = itemColumns(item, property.partner);
  const kept = (except?: string) => props.lines.filter((l) => l.Guid !== except).map((l) => ({ Guid: l.Guid }));
  return (
    <section class="lines" aria-labelledby={headingId}>
      <h2 id={headingId}>{property.label}</h2>
      <table>
        <thead>
          <tr>
            {columns.map((path) => (
              <th key={path} scope="col">
                {labelOf(item, model, path)}
              </th>
            ))}
            {props.editing && (
              <th scope="col">
                <span class="visually-hidden">{t("actions")}</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {props.lines.map((line, n) => (
            <tr key={line.Guid}>
              {columns.map((path) => {
                const found = propertyAt(model, item, path);
                const notes = notesAt(props.prompts, `${line.Guid}.${path}`);
                return (
                  <td key={path} class={notes.some((x) => x.severity === "error") ? "invalid" : undefined}>
                    {found && (
                      <Cell
                        property={found.property}
                        path={path}
                        line={line}
                        label={`${labelOf(item, model, path)}, ${t("line", { n: n + 1 })}`}
                        editing={props.editing && !path.includes("/")}
                        onChange={(value) => props.onChangeLine(line.Guid, { [path]: value })}
                      />
                    )}
                    <Notes notes={notes} />
                  </td>
                );
              })}
              {props.editing && (
                <td>
                  <button type="button" onClick={() => props.onLines(kept(line.Guid))}>
                    <span aria-hidden="true">✕</span>
                    <span class="visually-hidden">{t("removeLine", { n: n + 1 })}</span>
                  </button>
                  <Notes notes={notesAt(props.prompts, line.Guid)} />
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {props.lines.length === 0 && <p>{t("noRows", { items: property.label })}</p>}
      {props.editing && <NewLine item={item} columns={columns} onAdd={(body) => props.onLines([...kept(), body])} />}
    </section>
  );
}

const labelOf = (item: EntityView, model: ReturnType<typeof useSession>["model"], path: string) => {
  const found = propertyAt(model, item, path);
  if (found === undefined) return path;
  return path.includes("/") ? `${found.first.label}: ${found.property.label}` : found.property.label;
};

function Cell(props: {
  readonly property: PropertyView;
  readonly path: string;
  readonly line: Line;
  readonly label: string;
  readonly editing: boolean;
  readonly onChange: (value: unknown) => void;
}) {
  const { http, model } = useSession();
  const id = useId();
  const { property } = props;
  const value = valueAt(props.line, props.path);
  if (!props.editing || property.computed) return <>{formatValue(property, value)}</>;
  const label = (
    <label for={id} class="visually-hidden">
      {props.label}
    </label>
  );
  if (property.kind === "scalar" && !property.collection)
    return (
      <>
        {label}
        <ScalarInput id={id} type={property} value={value} required={!property.nullable} onCommit={props.onChange} />
      </>
    );
  if (property.kind === "reference") {
    return (
      <>
        {label}
        <ReferenceInput
          id={id}
          http={http}
          model={model}
          target={property.target}
          {...(property.valueHelp && { shown: property.valueHelp.shown })}
          value={referenceKeyText(model, property.target, value)}
          required={!property.nullable}
          onCommit={props.onChange}
        />
      </>
    );
  }
  return <>{formatValue(property, value)}</>;
}

/** a form for a new line: the editable columns, references by their target's natural key */
function NewLine(props: {
  readonly item: EntityView;
  readonly columns: readonly string[];
  readonly onAdd: (body: Record<string, unknown>) => void;
}) {
  const { http, model } = useSession();
  const formId = useId();
  const [body, setBody] = useState<Record<string, unknown>>({});
  const fields = props.columns
    .map((path) => props.item.properties.get(path))
    .filter(
      (p): p is PropertyView =>
        p !== undefined && !p.computed && (p.kind === "reference" || (p.kind === "scalar" && !p.collection)),
    );
  const set = (name: string) => (value: unknown) => setBody((b) => ({ ...b, [name]: value }));
  return (
    <form
      class="new-line"
      aria-label={t("addLine", { item: props.item.label })}
      onSubmit={(e) => {
        e.preventDefault();
        // read at submit: the last value typed is committed only as its field loses focus
        const form = e.currentTarget;
        const given: Record<string, unknown> = { ...body };
        for (const p of fields) {
          const input = form.querySelector<HTMLInputElement>(`[id="${formId}-${p.name}"]`);
          if (input === null || p.kind === "collection" || p.kind === "complex") continue;
          const text = input.type === "checkbox" ? input.checked : input.value.trim();
          if (text === "") continue;
          given[p.name] = p.kind === "scalar" && /Int|Decimal|Double|Single|Byte/.test(p.type) ? Number(text) : text;
        }
        props.onAdd(given);
        setBody({});
        form.reset();
      }}
    >
      <h3>{t("addLine", { item: props.item.label })}</h3>
      {fields.map((p) => (
        <div class="field" key={p.name}>
          <label for={`${formId}-${p.name}`}>
            {p.label}
            {!p.nullable && <abbr title={t("required")}> *</abbr>}
          </label>
          {p.kind === "reference" ? (
            <ReferenceInput
              id={`${formId}-${p.name}`}
              http={http}
              model={model}
              target={p.target}
              {...(p.valueHelp && { shown: p.valueHelp.shown })}
              value=""
              required={!p.nullable}
              onCommit={set(p.name)}
            />
          ) : p.kind === "scalar" ? (
            <ScalarInput
              id={`${formId}-${p.name}`}
              type={p}
              value={body[p.name]}
              required={!p.nullable}
              onCommit={set(p.name)}
            />
          ) : null}
        </div>
      ))}
      <button type="submit">{t("add")}</button>
    </form>
  );
}
