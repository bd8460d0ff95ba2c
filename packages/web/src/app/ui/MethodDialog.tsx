/**
 * A method's parameters as a form typed from its declaration (required ones marked and
 * enforced by the browser, defaults filled in), sent as the arguments of one call.
 */
import { useId, useState } from "preact/hooks";
import { t } from "../i18n.js";
import type { OperationView } from "../service/model-view.js";
import { Dialog } from "./Dialog.js";
import { parsedValue, ScalarInput } from "./ValueInput.js";

export function MethodDialog(props: {
  readonly operation: OperationView;
  readonly onRun: (args: Record<string, unknown>) => void;
  readonly onClose: () => void;
}) {
  const { operation } = props;
  const formId = useId();
  const [args, setArgs] = useState<Record<string, unknown>>(() =>
    Object.fromEntries(
      operation.parameters.flatMap((p) =>
        p.defaultValue === undefined
          ? []
          : [[p.name, parsedValue(p, p.type === "Edm.Boolean" ? p.defaultValue === "true" : p.defaultValue)]],
      ),
    ),
  );
  return (
    <Dialog title={operation.description ?? operation.name} onClose={props.onClose}>
      <form
        id={formId}
        onSubmit={(e) => {
          e.preventDefault();
          // read at submit: a value typed last is committed (change) only as the field loses focus
          const form = e.currentTarget;
          const given = operation.parameters.flatMap((p) => {
            const input = form.querySelector<HTMLInputElement>(`[id="${formId}-${p.name}"]`);
            if (input === null) return [];
            const value = parsedValue(p, input.type === "checkbox" ? input.checked : input.value);
            return value === null ? [] : [[p.name, value] as const];
          });
          props.onRun(Object.fromEntries(given));
        }}
      >
        {operation.parameters.map((p) => (
          <div class="field" key={p.name}>
            <label for={`${formId}-${p.name}`}>
              {p.name}
              {p.required && <abbr title={t("required")}> *</abbr>}
            </label>
            <ScalarInput
              id={`${formId}-${p.name}`}
              type={p}
              required={p.required}
              value={args[p.name]}
              onCommit={(value) => setArgs((a) => ({ ...a, [p.name]: value }))}
            />
          </div>
        ))}
        <div class="buttons">
          <button type="submit" class="primary">
            {t("run")}
          </button>
          <button type="button" onClick={props.onClose}>
            {t("cancel")}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
