/**
 * An input typed from a property or parameter declaration: a checkbox for booleans, a select for
 * enums, number, date and time inputs for their types, text (bounded by its max length) for the
 * rest; a reference as its target's natural key, with the value help's matches as suggestions.
 * `onCommit` gets the value as the service takes it (JSON), once the person leaves the field.
 */
import { useEffect, useId, useState } from "preact/hooks";
import { t } from "../i18n.js";
import { type Http, quoted } from "../service/http.js";
import { type ModelView, referenceKeyOf, type ScalarType } from "../service/model-view.js";
import { isNumeric } from "../service/queries.js";

export interface InputType {
  readonly type: ScalarType;
  readonly members?: readonly string[];
  readonly maxLength?: number;
}

/** the JSON value an input's text stands for (numbers as numbers, empty as null) */
export function parsedValue(type: InputType, text: string | boolean): unknown {
  if (typeof text === "boolean") return text;
  if (text === "") return null;
  return isNumeric(type.type) ? Number(text) : text;
}

const inputKind = (type: ScalarType) =>
  isNumeric(type)
    ? "number"
    : type === "Edm.Date"
      ? "date"
      : type === "Edm.TimeOfDay"
        ? "time"
        : type === "Edm.DateTimeOffset"
          ? "datetime-local"
          : "text";

export function ScalarInput(props: {
  readonly id: string;
  readonly type: InputType;
  readonly value: unknown;
  readonly required?: boolean;
  readonly describedBy?: string | undefined;
  readonly invalid?: boolean;
  readonly onCommit: (value: unknown) => void;
}) {
  const { type } = props;
  // what the person types, until the value itself changes: a render meanwhile (the answer of a
  // change made in another field) must not put the old value back under their cursor
  const [draft, setDraft] = useState<string | undefined>(undefined);
  useEffect(() => setDraft(undefined), [props.value]);
  const common = {
    id: props.id,
    "aria-describedby": props.describedBy,
    "aria-invalid": props.invalid ? ("true" as const) : undefined,
    required: props.required,
  };
  if (type.type === "Edm.Boolean")
    return (
      <input
        {...common}
        type="checkbox"
        checked={props.value === true}
        onChange={(e) => props.onCommit(e.currentTarget.checked)}
      />
    );
  if (type.members !== undefined)
    return (
      <select
        {...common}
        value={String(props.value ?? "")}
        onChange={(e) => props.onCommit(parsedValue(type, e.currentTarget.value))}
      >
        {!props.required && <option value="" />}
        {type.members.map((m) => (
          <option key={m} value={m}>
            {m}
          </option>
        ))}
      </select>
    );
  return (
    <input
      {...common}
      type={inputKind(type.type)}
      step={isNumeric(type.type) ? "any" : undefined}
      maxLength={type.maxLength}
      value={draft ?? (props.value === null || props.value === undefined ? "" : String(props.value))}
      onInput={(e) => setDraft(e.currentTarget.value)}
      onChange={(e) => props.onCommit(parsedValue(type, e.currentTarget.value))}
    />
  );
}

/** a reference typed as the target's natural key, suggesting the value help's matches as one types */
export function ReferenceInput(props: {
  readonly id: string;
  readonly http: Http;
  readonly model: ModelView;
  readonly target: string;
  /** the target's properties the value help shows beside its natural key (Common.ValueList) */
  readonly shown?: readonly string[];
  /** the target's natural key of the current value */
  readonly value: string;
  readonly required?: boolean;
  readonly describedBy?: string | undefined;
  readonly invalid?: boolean;
  readonly onCommit: (value: string | null) => void;
}) {
  const listId = useId();
  const [text, setText] = useState(props.value);
  const [options, setOptions] = useState<{ key: string; shown: string }[]>([]);
  useEffect(() => setText(props.value), [props.value]);
  const entity = props.model.entities.get(props.target);
  const key = referenceKeyOf(props.model, props.target);
  useEffect(() => {
    // suggestions for what the person types, not for the value the field opened with
    if (entity?.set === undefined || text.trim() === "" || text === props.value) return;
    const shown = ["Title", ...(props.shown ?? [])];
    const filter =
      key === "Guid"
        ? `contains(Title,${quoted(text)})`
        : `startswith(${key},${quoted(text)}) or contains(Title,${quoted(text)})`;
    const timer = setTimeout(async () => {
      const answer = await props.http.request(
        "GET",
        `/${entity.set}?$select=${[key, ...shown].join(",")}&$top=8&$filter=${encodeURIComponent(filter)}`,
      );
      if (answer.status === 200)
        setOptions(
          answer.body.value.map((r: Record<string, unknown>) => ({
            key: String(r[key]),
            shown: shown.map((name) => String(r[name] ?? "")).join(" · "),
          })),
        );
    }, 200);
    return () => clearTimeout(timer);
  }, [text]);
  return (
    <>
      <input
        id={props.id}
        list={listId}
        value={text}
        required={props.required}
        autoComplete="off"
        aria-describedby={props.describedBy}
        aria-invalid={props.invalid ? "true" : undefined}
        placeholder={key}
        onInput={(e) => setText(e.currentTarget.value)}
        onChange={(e) => props.onCommit(e.currentTarget.value.trim() === "" ? null : e.currentTarget.value.trim())}
      />
      <datalist id={listId}>
        {options.map((o) => (
          <option key={o.key} value={o.key}>
            {o.shown}
          </option>
        ))}
      </datalist>
      {props.required && <span class="visually-hidden">{t("required")}</span>}
    </>
  );
}
