/**
 * The texts the app itself shows, in message bundles per language (the model's own captions come
 * from its annotations). The language is the first of the browser's preferred languages (what it
 * sends as Accept-Language) that has a bundle, else English; `{name}` placeholders are filled in.
 */
const en = {
  appTitle: "Business data",
  signIn: "Sign in",
  signInIntro: "Sign in to see and change your business data.",
  signOut: "Sign out",
  signedInAs: "Signed in as {user}",
  tenant: "Tenant {tenant}",
  tenantLabel: "Tenant",
  userLabel: "User name",
  passwordLabel: "Password",
  signInFailed: "The sign-in did not succeed: {reason}",
  entitySets: "Entity sets",
  home: "Home",
  loading: "Loading…",
  search: "Search",
  filter: "Filter {column}",
  any: "Any",
  yes: "Yes",
  no: "No",
  sortBy: "Sort by {column}",
  nothingFound: "Nothing found.",
  range: "{from}–{to} of {count}",
  previous: "Previous page",
  next: "Next page",
  open: "Open {title}",
  fields: "Fields",
  actions: "Actions",
  edit: "Edit",
  save: "Save",
  discard: "Discard",
  editing: "Editing: changes are staged until you save.",
  saved: "Saved.",
  notSaved: "Nothing was saved: correct the fields marked below.",
  questionPending: "A question must be answered before saving.",
  addLine: "Add {item}",
  add: "Add",
  remove: "Remove",
  removeLine: "Remove line {n}",
  line: "Line {n}",
  run: "Run",
  cancel: "Cancel",
  close: "Close",
  result: "Result of {method}",
  done: "{method} done.",
  disabledNow: "{method} is not available for this record now.",
  required: "required",
  error: "Error",
  question: "Question",
  message: "Note",
  notFound: "There is nothing at this address.",
  reloaded: "An edit of this record was still open: it is shown again.",
  noRows: "No {items}.",
} as const;

export type MessageKey = keyof typeof en;
type Bundle = Readonly<Record<MessageKey, string>>;

const de: Bundle = {
  appTitle: "Geschäftsdaten",
  signIn: "Anmelden",
  signInIntro: "Melden Sie sich an, um Ihre Geschäftsdaten zu sehen und zu ändern.",
  signOut: "Abmelden",
  signedInAs: "Angemeldet als {user}",
  tenant: "Mandant {tenant}",
  tenantLabel: "Mandant",
  userLabel: "Benutzername",
  passwordLabel: "Kennwort",
  signInFailed: "Die Anmeldung ist fehlgeschlagen: {reason}",
  entitySets: "Entitätsmengen",
  home: "Start",
  loading: "Wird geladen …",
  search: "Suchen",
  filter: "{column} filtern",
  any: "Alle",
  yes: "Ja",
  no: "Nein",
  sortBy: "Nach {column} sortieren",
  nothingFound: "Nichts gefunden.",
  range: "{from}–{to} von {count}",
  previous: "Vorherige Seite",
  next: "Nächste Seite",
  open: "{title} öffnen",
  fields: "Felder",
  actions: "Aktionen",
  edit: "Bearbeiten",
  save: "Sichern",
  discard: "Verwerfen",
  editing: "Bearbeitung: Änderungen werden vorgemerkt, bis Sie sichern.",
  saved: "Gesichert.",
  notSaved: "Nichts wurde gesichert: korrigieren Sie die markierten Felder.",
  questionPending: "Vor dem Sichern muss eine Frage beantwortet werden.",
  addLine: "{item} hinzufügen",
  add: "Hinzufügen",
  remove: "Entfernen",
  removeLine: "Zeile {n} entfernen",
  line: "Zeile {n}",
  run: "Ausführen",
  cancel: "Abbrechen",
  close: "Schließen",
  result: "Ergebnis von {method}",
  done: "{method} ausgeführt.",
  disabledNow: "{method} ist für diesen Datensatz gerade nicht möglich.",
  required: "Pflichtfeld",
  error: "Fehler",
  question: "Frage",
  message: "Hinweis",
  notFound: "Unter dieser Adresse gibt es nichts.",
  reloaded: "Eine Bearbeitung dieses Datensatzes war noch offen: sie wird wieder gezeigt.",
  noRows: "Keine {items}.",
};

const bundles: Readonly<Record<string, Bundle>> = { en, de };

/** the language of the first preferred language that has a bundle (`de-AT` → `de`), else `en` */
export function pickLanguage(preferred: readonly string[]): string {
  for (const tag of preferred) {
    const base = tag.toLowerCase().split("-")[0]!;
    if (Object.hasOwn(bundles, base)) return base;
  }
  return "en";
}

export const language = pickLanguage(typeof navigator === "undefined" ? [] : navigator.languages);

/** the text of `key` in the page's language, `{name}` filled from `values` */
export function t(key: MessageKey, values: Readonly<Record<string, string | number>> = {}): string {
  const text = (bundles[language] ?? en)[key];
  return text.replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.hasOwn(values, name) ? String(values[name]) : whole,
  );
}
