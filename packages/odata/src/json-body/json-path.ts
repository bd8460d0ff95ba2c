import { COMMA, closingQuote, LBRACE, LBRACKET, QUOTE, RBRACE, RBRACKET } from "./json-text.js";

interface Container {
  readonly isObject: boolean;
  /** Position in an array. */
  index: number;
  /** Latest property name read in an object. */
  key: string;
  /** In an object, whether the next string is a property name rather than a value. */
  expectsKey: boolean;
}

/**
 * The path of the value starting at `position` in valid JSON text, written as error targets are:
 * `Details[2].Quantity`, `Cost`, `[0]`; a name that is not an identifier is written `["a b"]`.
 * Only error reporting needs it, so it re-scans the text instead of burdening the parse.
 */
export function jsonPathAt(text: string, position: number): string {
  const stack: Container[] = [];
  for (let i = 0; i < position; i++) {
    const c = text.charCodeAt(i);
    const top = stack[stack.length - 1];
    if (c === QUOTE) {
      const end = closingQuote(text, i);
      if (top?.expectsKey) {
        top.key = JSON.parse(text.slice(i, end + 1)) as string;
        top.expectsKey = false;
      }
      i = end;
    } else if (c === LBRACE || c === LBRACKET) {
      stack.push({ isObject: c === LBRACE, index: 0, key: "", expectsKey: c === LBRACE });
    } else if (c === RBRACE || c === RBRACKET) {
      stack.pop();
    } else if (c === COMMA && top !== undefined) {
      if (top.isObject) top.expectsKey = true;
      else top.index++;
    }
  }
  return stack.map(segment).join("").replace(/^\./, "");
}

const segment = (container: Container): string => {
  if (!container.isObject) return `[${container.index}]`;
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(container.key) ? `.${container.key}` : `[${JSON.stringify(container.key)}]`;
};
