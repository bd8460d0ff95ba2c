/** The messages of one prompt key (a record, a field, or global), beside what they are about. */
import { t } from "../i18n.js";
import type { Prompt } from "../service/prompts.js";

export function Notes(props: { readonly notes: readonly Prompt[]; readonly id?: string }) {
  if (props.notes.length === 0) return null;
  return (
    <ul class="notes" id={props.id}>
      {props.notes.map((note) => (
        <li key={note.id} class={`note ${note.severity}`} role={note.severity === "error" ? "alert" : "status"}>
          <span class="note-kind">{note.severity === "error" ? t("error") : t("message")}: </span>
          {note.text}
        </li>
      ))}
    </ul>
  );
}
