/**
 * One field of an object page: its caption and value (a reference as a link to its record), or
 * while editing an input typed from the property, with the prompts keyed by it beside it.
 */
import { useId } from "preact/hooks";
import { type PropertyView, referenceKeyText } from "../service/model-view.js";
import type { Prompt } from "../service/prompts.js";
import { valueAt } from "../service/queries.js";
import { recordHref, useSession } from "./context.js";
import { formatValue } from "./format.js";
import { Notes } from "./Notes.js";
import { ReferenceInput, ScalarInput } from "./ValueInput.js";

export function FieldView(props: {
  readonly path: string;
  readonly property: PropertyView;
  /** the record's own property the path starts with (the reference of `SellToCustomer/Name`) */
  readonly first: PropertyView;
  readonly record: Record<string, any>;
  readonly editing: boolean;
  readonly notes: readonly Prompt[];
  readonly onChange: (value: unknown) => void;
}) {
  const { http, model } = useSession();
  const id = useId();
  const { property, path, record } = props;
  const value = valueAt(record, path);
  const notesId = props.notes.length > 0 ? `${id}-notes` : undefined;
  const invalid = props.notes.some((n) => n.severity === "error");
  const label = path.includes("/") ? `${props.first.label}: ${property.label}` : property.label;
  const writable = props.editing && !property.computed;

  let shown: preact.ComponentChild;
  if (writable && property.kind === "scalar" && !property.collection) {
    shown = (
      <ScalarInput
        id={id}
        type={property}
        value={value}
        required={!property.nullable}
        describedBy={notesId}
        invalid={invalid}
        onCommit={props.onChange}
      />
    );
  } else if (writable && property.kind === "reference") {
    shown = (
      <ReferenceInput
        id={id}
        http={http}
        model={model}
        target={property.target}
        {...(property.valueHelp && { shown: property.valueHelp.shown })}
        value={referenceKeyText(model, property.target, value)}
        required={!property.nullable}
        describedBy={notesId}
        invalid={invalid}
        onCommit={props.onChange}
      />
    );
  } else if (property.kind === "reference" && value !== null && typeof value === "object") {
    const target = model.entities.get(property.target);
    const guid = String((value as Record<string, unknown>).Guid);
    const text = formatValue(property, value);
    shown = target?.set ? <a href={recordHref(target.set, guid)}>{text}</a> : text;
  } else if (property.kind === "complex" && value !== null && typeof value === "object") {
    shown = property.members
      .map((m) => formatValue(m, (value as Record<string, unknown>)[m.name]))
      .filter((text) => text !== "")
      .join(", ");
  } else {
    shown = formatValue(property, value);
  }
  return (
    <div class={`field${invalid ? " invalid" : ""}`}>
      {writable && (property.kind === "scalar" || property.kind === "reference") ? (
        <label for={id}>{label}</label>
      ) : (
        <span class="label">{label}</span>
      )}
      <div class="value">{shown}</div>
      <Notes notes={props.notes} {...(notesId && { id: notesId })} />
    </div>
  );
}
