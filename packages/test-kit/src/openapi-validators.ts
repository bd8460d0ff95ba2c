/**
 * What judges a generated OpenAPI 3.1 document: the OpenAPI Initiative's 3.1 schema through
 * `@seriousme/openapi-schema-validator` (structure, and every `$ref` resolves), every schema in it
 * checked by ajv against JSON Schema 2020-12 (OpenAPI 3.1's dialect; strict, so an unknown or
 * misspelt keyword is an error), and the two rules of the OpenAPI specification that no schema
 * expresses: operation ids are unique, and a path template's variables are exactly its path
 * parameters. `bodyValidator` checks a real response body against the document's schema for it.
 */
import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";

/** the document's base URI inside ajv, so `#/components/…` references resolve in it */
const BASE = "https://openapi.test/openapi.json";

type Json = { readonly [key: string]: unknown };

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === "object" && !Array.isArray(value);

const pointer = (steps: readonly string[]) =>
  `#/${steps.map((s) => s.replaceAll("~", "~0").replaceAll("/", "~1")).join("/")}`;

function ajvOver(doc: Json): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true, validateFormats: false });
  // the document's own members hold schemas but are none themselves
  ajv.addVocabulary(Object.keys(doc));
  ajv.addSchema({ ...doc, $id: BASE });
  return ajv;
}

/** every schema of the document with its JSON pointer: components.schemas, and every `schema` member */
function schemasOf(doc: Json): [string, unknown][] {
  const found: [string, unknown][] = [];
  const components = isObject(doc.components) ? doc.components : {};
  for (const [name, schema] of Object.entries(isObject(components.schemas) ? components.schemas : {}))
    found.push([pointer(["components", "schemas", name]), schema]);
  const walk = (node: unknown, steps: string[]) => {
    if (Array.isArray(node)) {
      for (const [i, item] of node.entries()) walk(item, [...steps, String(i)]);
    }
    if (!isObject(node)) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === "schema") found.push([pointer([...steps, key]), value]);
      else walk(value, [...steps, key]);
    }
  };
  walk(doc.paths, ["paths"]);
  for (const part of ["parameters", "responses", "headers"]) walk(components[part], ["components", part]);
  return found;
}

const operationsOf = (doc: Json) =>
  Object.entries(isObject(doc.paths) ? doc.paths : {}).flatMap(([path, item]) =>
    Object.entries(item as Json)
      .filter(([method]) => ["get", "put", "post", "delete", "options", "head", "patch", "trace"].includes(method))
      .map(([method, operation]) => ({ path, method, item: item as Json, operation: operation as Json })),
  );

/** a `$ref` to `#/components/parameters/…` as the parameter it names */
function parameter(doc: Json, p: Json): Json {
  if (typeof p.$ref !== "string") return p;
  const name = p.$ref.replace("#/components/parameters/", "");
  return ((doc.components as Json).parameters as Json)[name] as Json;
}

function ruleErrors(doc: Json): string[] {
  const errors: string[] = [];
  const ids = new Map<string, string>();
  for (const { path, method, item, operation } of operationsOf(doc)) {
    const where = `${method.toUpperCase()} ${path}`;
    const id = operation.operationId;
    if (typeof id === "string") {
      const other = ids.get(id);
      if (other !== undefined) errors.push(`${where}: operationId ${id} is also ${other}'s`);
      ids.set(id, where);
    }
    const parameters = [...((item.parameters as Json[]) ?? []), ...((operation.parameters as Json[]) ?? [])].map((p) =>
      parameter(doc, p),
    );
    const inPath = new Set(parameters.filter((p) => p.in === "path").map((p) => p.name as string));
    const templated = new Set([...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!));
    for (const name of templated) if (!inPath.has(name)) errors.push(`${where}: {${name}} has no path parameter`);
    for (const name of inPath)
      if (!templated.has(name)) errors.push(`${where}: path parameter ${name} is not in the path`);
  }
  return errors;
}

/** what is wrong with `doc` as an OpenAPI 3.1 document; empty when nothing is */
export async function openApiErrors(doc: unknown): Promise<string[]> {
  const copy = structuredClone(doc) as Json;
  const result = await new Validator().validate(structuredClone(copy) as never);
  const errors = result.valid ? [] : [JSON.stringify(result.errors)];
  if (!result.valid) return errors;
  const ajv = ajvOver(copy);
  for (const [at, schema] of schemasOf(copy)) {
    if (!ajv.validateSchema(schema as object)) errors.push(`${at}: ${ajv.errorsText(ajv.errors)}`);
    else {
      try {
        ajv.compile({ $ref: `${BASE}${at}` });
      } catch (err) {
        errors.push(`${at}: ${(err as Error).message}`);
      }
    }
  }
  return [...errors, ...ruleErrors(copy)];
}

/**
 * A validator of bodies against the schema at `at` in `doc` (a JSON pointer such as
 * `#/paths/~1Product/get/responses/200/content/application~1json/schema`); its `errors` name
 * what did not match.
 */
export function bodyValidator(doc: unknown, at: string): ValidateFunction {
  return ajvOver(structuredClone(doc) as Json).compile({ $ref: `${BASE}${at}` });
}

/** the pointer to the JSON schema of an operation's JSON answer, through a `$ref` to a shared response */
export function responseSchemaAt(doc: unknown, path: string, method: string, status: number | string): string {
  const steps = ["paths", path, method, "responses", String(status)];
  const response = steps.reduce<unknown>((node, step) => (isObject(node) ? node[step] : undefined), doc);
  const at = isObject(response) && typeof response.$ref === "string" ? response.$ref : pointer(steps);
  return `${at}/content/application~1json/schema`;
}
