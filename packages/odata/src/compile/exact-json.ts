/**
 * JSON text to values and back without touching numbers: a number keeps its source text, so a
 * decimal such as `12345678901234.5678` (more digits than a double holds) leaves exactly as
 * PostgreSQL wrote it (api-conventions: Numbers, never silently rounded). Used only where JSON
 * built in the database must be opened to add virtual properties (json-object.ts). Node 20 has
 * neither `JSON.rawJSON` nor the reviver's source text, hence this small reader for the
 * well-formed JSON PostgreSQL produces.
 */

/** a JSON number as written */
export class ExactNumber {
  constructor(readonly text: string) {}
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

export function parseExactJson(text: string): unknown {
  let i = 0;
  const space = () => {
    while (i < text.length && (text[i] === " " || text[i] === "\n" || text[i] === "\r" || text[i] === "\t")) i++;
  };
  const expect = (c: string) => {
    space();
    if (text[i] !== c) throw new SyntaxError(`expected '${c}' at ${i} in JSON from the database`);
    i++;
  };
  const string = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (): unknown => {
    space();
    const c = text[i];
    if (c === "{") {
      i++;
      const object: Record<string, unknown> = {};
      space();
      if (text[i] === "}") {
        i++;
        return object;
      }
      for (;;) {
        space();
        const key = string();
        expect(":");
        // defineProperty: a key is data, never a prototype
        Object.defineProperty(object, key, { value: value(), enumerable: true, writable: true, configurable: true });
        space();
        if (text[i] === "}") {
          i++;
          return object;
        }
        expect(",");
      }
    }
    if (c === "[") {
      i++;
      const array: unknown[] = [];
      space();
      if (text[i] === "]") {
        i++;
        return array;
      }
      for (;;) {
        array.push(value());
        space();
        if (text[i] === "]") {
          i++;
          return array;
        }
        expect(",");
      }
    }
    if (c === '"') return string();
    for (const [word, literal] of [
      ["true", true],
      ["false", false],
      ["null", null],
    ] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return literal;
      }
    }
    NUMBER.lastIndex = i;
    const number = NUMBER.exec(text);
    if (number === null) throw new SyntaxError(`unexpected '${c}' at ${i} in JSON from the database`);
    i = NUMBER.lastIndex;
    return new ExactNumber(number[0]);
  };
  const result = value();
  space();
  if (i !== text.length) throw new SyntaxError(`unexpected text at ${i} in JSON from the database`);
  return result;
}

export function writeExactJson(value: unknown): string {
  if (value instanceof ExactNumber) return value.text;
  if (Array.isArray(value)) return `[${value.map(writeExactJson).join(",")}]`;
  if (value !== null && typeof value === "object" && !("toJSON" in value)) {
    const members = Object.entries(value).filter(([, v]) => v !== undefined);
    return `{${members.map(([k, v]) => `${JSON.stringify(k)}:${writeExactJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
