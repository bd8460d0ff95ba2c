/**
 * One record: its field groups, references as links, owned collections as tables, a button per
 * method (disabled while the record's RecordReadOnly names it), and editing inside a workflow
 * whose staging key is the record, so that a reload finds the edit again. Every change is a
 * staged step; the prompts an answer carries are shown beside the field or record they are keyed
 * by, questions as dialogs answered through their choice link; Save commits (200 closes the
 * edit, 422 asks the pending question, 400 marks the fields the save refused), Discard closes.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { t } from "../i18n.js";
import { type Answer, errorText } from "../service/http.js";
import { type EntityView, groupsOf, type OperationView, type PropertyView, propertyAt } from "../service/model-view.js";
import { notesAt, type Prompt, type Prompts, pendingQuestion, promptsOf } from "../service/prompts.js";
import { projection } from "../service/queries.js";
import { findWorkflow, openWorkflow, type Workflow } from "../service/workflow.js";
import { listHref, useSession } from "./context.js";
import { Dialog } from "./Dialog.js";
import { FieldView } from "./FieldView.js";
import { formatValue } from "./format.js";
import { LinesTable } from "./LinesTable.js";
import { MethodDialog } from "./MethodDialog.js";
import { Notes } from "./Notes.js";

/** the prompts a refused write or commit carries: its envelope, else its error details by target */
function promptsOfFailure(answer: Answer): Prompts {
  const envelope = promptsOf(answer.body);
  if (Object.keys(envelope).length > 0) return envelope;
  const error = answer.body?.error;
  const details: { message: string; target?: string }[] = error?.details?.length ? error.details : [error ?? {}];
  const prompts: Record<string, Prompt[]> = {};
  for (const [i, d] of details.entries()) {
    const key = d.target ?? "global";
    prompts[key] = [
      ...(prompts[key] ?? []),
      { id: `failure-${i}`, text: d.message ?? errorText(answer), severity: "error" },
    ];
  }
  return prompts;
}

interface Question {
  readonly prompt: Prompt;
  /** asked by a commit: answering commits again */
  readonly fromCommit: boolean;
}

export function ObjectPage(props: { readonly entity: EntityView; readonly guid: string }) {
  const { http, model, rights } = useSession();
  const { entity, guid } = props;
  const set = entity.set!;
  const stagingKey = `${set}(${guid})`;
  const collections = [...entity.properties.values()].filter((p) => p.kind === "collection").map((p) => p.name);
  const groups = groupsOf(entity);
  const paths = [...new Set(["Title", ...groups.flatMap((g) => g.fields), "RecordReadOnly"])];
  const { select, expand } = projection(model, entity, paths, collections);
  const readPath = `/${set}(${guid})?$select=${select}${expand ? `&$expand=${expand}` : ""}`;
  const mayEdit = rights.may("update", entity.name);

  const [record, setRecord] = useState<Record<string, any> | null | undefined>();
  const [workflow, setWorkflow] = useState<Workflow | undefined>();
  const [prompts, setPrompts] = useState<Prompts>({});
  const [status, setStatus] = useState<{ text: string; error?: boolean } | undefined>();
  const [question, setQuestion] = useState<Question | undefined>();
  const [calling, setCalling] = useState<OperationView | undefined>();
  const [result, setResult] = useState<{ method: string; text: string } | undefined>();
  const [busy, setBusy] = useState(false);

  /** a request of the page: a step of the open workflow, or (`null`) a plain request */
  const send = (method: string, path: string, body?: unknown, wf: Workflow | null | undefined = workflow) =>
    wf
      ? wf.step(method, path, body === undefined ? {} : { body })
      : http.request(method, path, body === undefined ? {} : { body });

  const load = async (wf: Workflow | null | undefined = workflow) => {
    const answer = await send("GET", readPath, undefined, wf);
    setRecord(answer.status === 200 ? answer.body : null);
  };

  useEffect(() => {
    setRecord(undefined);
    setWorkflow(undefined);
    setPrompts({});
    setStatus(undefined);
    void (async () => {
      // an edit left open (a reload, another tab of the same user) is picked up again
      const open = mayEdit ? await findWorkflow(http, stagingKey) : undefined;
      if (open) {
        setWorkflow(open);
        setStatus({ text: t("reloaded") });
      }
      await load(open ?? null);
    })();
  }, [set, guid]);

  /** shows what an answer says: its prompts beside their keys, a question as a dialog */
  const show = (answer: Answer, fromCommit = false) => {
    const ok = answer.status >= 200 && answer.status < 300;
    const shown = ok || answer.status === 422 ? promptsOf(answer.body) : promptsOfFailure(answer);
    setPrompts(shown);
    const asked = pendingQuestion(shown);
    if (asked) setQuestion({ prompt: asked, fromCommit });
    return ok;
  };

  /** the page's operations, one after the other (see run) */
  const queue = useRef<Promise<void>>(Promise.resolve());
  /**
   * Runs `work` once every operation started before it has ended. A person who leaves a field
   * and at once clicks Save starts the save before the button shows disabled: it must wait for
   * the field's staged change, and the answers must be shown in the order they were asked for
   * (the change's prompts after the save's would hide the save-time errors).
   */
  const run = (work: () => Promise<void>): Promise<void> => {
    const done = queue.current.then(async () => {
      setBusy(true);
      try {
        await work();
      } finally {
        setBusy(false);
      }
    });
    queue.current = done.catch(() => {});
    return done;
  };

  const edit = () =>
    run(async () => {
      const wf = await openWorkflow(http, stagingKey);
      // the record as the workflow sees it before its fields open for typing
      await load(wf);
      setWorkflow(wf);
      setStatus({ text: t("editing") });
    });

  /** stages one change of the record (or of an owned item under it) and reads the record again */
  const change = (path: string, body: Record<string, unknown>) =>
    run(async () => {
      const answer = await send("PATCH", path, body);
      if (!show(answer)) setStatus({ text: errorText(answer), error: true });
      else setStatus({ text: t("editing") });
      await load();
    });

  /** commits the open workflow (an operation's work: run it through `run`) */
  const commit = async () => {
    if (!workflow) return;
    const answer = await workflow.commit();
    if (answer.status === 200) {
      await workflow.close();
      setWorkflow(undefined);
      setPrompts(promptsOf(answer.body));
      setStatus({ text: t("saved") });
      await load(null);
      return;
    }
    show(answer, true);
    setStatus({ text: answer.status === 422 ? t("questionPending") : t("notSaved"), error: answer.status !== 422 });
  };
  const save = () => run(commit);

  const discard = () =>
    run(async () => {
      await workflow?.close();
      setWorkflow(undefined);
      setPrompts({});
      setStatus(undefined);
      await load(null);
    });

  const answer = (href: string) =>
    run(async () => {
      const asked = question;
      setQuestion(undefined);
      if (!workflow || !asked) return;
      const answered = await workflow.answer(href);
      show(answered);
      if (answered.status !== 200) setStatus({ text: errorText(answered), error: true });
      await load();
      if (asked.fromCommit && answered.status === 200) await commit();
    });

  const call = (operation: OperationView, args: Record<string, unknown>) =>
    run(async () => {
      setCalling(undefined);
      const base = `/${set}(${guid})/${operation.name}`;
      const answer =
        operation.kind === "function"
          ? await send(
              "GET",
              `${base}()${Object.keys(args).length ? `?${new URLSearchParams(args as Record<string, string>)}` : ""}`,
            )
          : await send("POST", base, args);
      if (!show(answer)) {
        setStatus({ text: errorText(answer), error: true });
        return;
      }
      if (operation.kind === "function") {
        const value = answer.body?.value;
        const text = Array.isArray(value)
          ? value.map((r: Record<string, unknown>) => r.Title ?? r.Guid).join(", ")
          : value !== null && typeof value === "object"
            ? String((value as Record<string, unknown>).Title ?? "")
            : typeof value === "number"
              ? formatValue(numberProperty, value)
              : String(value ?? "");
        setResult({ method: operation.name, text });
      } else setStatus({ text: t("done", { method: operation.name }) });
      await load();
    });

  if (record === undefined) return <main aria-busy="true">{t("loading")}</main>;
  if (record === null)
    return (
      <main>
        <p role="alert">{t("notFound")}</p>
        <a href={listHref(set)}>{entity.pluralLabel}</a>
      </main>
    );

  const disabled = new Set<string>(record.RecordReadOnly ?? []);
  const methods = entity.operations.filter((o) => rights.mayCall(entity.name, o.name));
  const editing = workflow !== undefined;
  return (
    <main>
      <p class="breadcrumb">
        <a href={listHref(set)}>{entity.pluralLabel}</a>
      </p>
      <h1>
        <span class="type">{entity.label}</span> {record.Title ?? record[entity.naturalKey] ?? guid}
      </h1>
      <Notes notes={notesAt(prompts, "global")} />
      <Notes notes={notesAt(prompts, guid)} />
      <div class="toolbar" role="toolbar" aria-label={t("actions")}>
        {mayEdit && !editing && (
          <button type="button" class="primary" disabled={busy} onClick={edit}>
            {t("edit")}
          </button>
        )}
        {editing && (
          <>
            <button type="button" class="primary" disabled={busy} onClick={save}>
              {t("save")}
            </button>
            <button type="button" disabled={busy} onClick={discard}>
              {t("discard")}
            </button>
          </>
        )}
        {methods.map((o) => (
          <button
            key={o.name}
            type="button"
            disabled={busy || disabled.has(o.name)}
            title={disabled.has(o.name) ? t("disabledNow", { method: o.name }) : o.description}
            onClick={() => (o.parameters.length > 0 ? setCalling(o) : call(o, {}))}
          >
            {o.name}
          </button>
        ))}
      </div>
      {status && (
        <p class={status.error ? "note error" : "note info"} role={status.error ? "alert" : "status"}>
          {status.text}
        </p>
      )}
      {groups.map((group) => (
        <section key={group.qualifier} class="group" aria-labelledby={`group-${group.qualifier}`}>
          <h2 id={`group-${group.qualifier}`}>{group.label ?? t("fields")}</h2>
          <div class="fields">
            {group.fields.map((path) => {
              const found = propertyAt(model, entity, path);
              if (found === undefined) return null;
              return (
                <FieldView
                  key={path}
                  path={path}
                  property={found.property}
                  first={found.first}
                  record={record}
                  editing={editing && !path.includes("/")}
                  notes={notesAt(prompts, `${guid}.${path}`)}
                  onChange={(value) => change(`/${set}(${guid})`, { [found.first.name]: value })}
                />
              );
            })}
          </div>
        </section>
      ))}
      {collections.map((name) => {
        const property = entity.properties.get(name) as Extract<PropertyView, { kind: "collection" }>;
        return (
          <LinesTable
            key={name}
            property={property}
            lines={record[name] ?? []}
            editing={editing}
            prompts={prompts}
            onChangeLine={(line, body) => change(`/${set}(${guid})/${name}(${line})`, body)}
            onLines={(lines) => change(`/${set}(${guid})`, { [name]: lines })}
          />
        );
      })}
      {calling && (
        <MethodDialog operation={calling} onRun={(args) => call(calling, args)} onClose={() => setCalling(undefined)} />
      )}
      {result && (
        <Dialog title={t("result", { method: result.method })} onClose={() => setResult(undefined)}>
          <p class="result" role="status">
            {result.text}
          </p>
          <div class="buttons">
            <button type="button" class="primary" onClick={() => setResult(undefined)}>
              {t("close")}
            </button>
          </div>
        </Dialog>
      )}
      {question && (
        <Dialog title={t("question")}>
          <p>{question.prompt.text}</p>
          <div class="buttons">
            {question.prompt.choices!.map((choice, i) => (
              <button
                key={choice.key}
                type="button"
                class={i === 0 ? "primary" : undefined}
                onClick={() => answer(choice.href)}
              >
                {choice.label}
              </button>
            ))}
          </div>
        </Dialog>
      )}
    </main>
  );
}

/** a Read method's scalar result is formatted as a number when it is one */
const numberProperty: PropertyView = {
  kind: "scalar",
  name: "value",
  label: "value",
  type: "Edm.Decimal",
  computed: true,
  nullable: true,
  collection: false,
};
