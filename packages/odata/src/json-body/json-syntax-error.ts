/** Where JSON text first breaks the grammar, and what was expected there. */
export interface JsonSyntaxError {
  /** Zero-based index into the text; the text's length when the input ends too early. */
  readonly position: number;
  /** For example `found "}" where a value was expected`. */
  readonly problem: string;
}

/**
 * Locates the first RFC 8259 grammar error, or returns undefined for valid JSON. JSON.parse does
 * not report a position reliably (V8's "Unexpected token" messages carry none, and the wording
 * changes between Node versions), so the error path walks the text itself. Recursion follows the
 * nesting: call it only on text whose depth is already bounded.
 */
export function findJsonSyntaxError(text: string): JsonSyntaxError | undefined {
  let i = 0;

  const fail = (expected: string): never => {
    const found = i < text.length ? JSON.stringify(text[i]) : "the end of the input";
    throw new Located({ position: i, problem: `found ${found} where ${expected} was expected` });
  };
  const skipWhitespace = () => {
    while (i < text.length && " \t\n\r".includes(text[i]!)) i++;
  };
  const expect = (char: string, expected: string) => {
    if (text[i] !== char) fail(expected);
    i++;
  };
  const digits = () => {
    if (!isDigit(text[i])) fail("a digit");
    while (isDigit(text[i])) i++;
  };

  const value = (): void => {
    const c = text[i];
    if (c === "{") object();
    else if (c === "[") array();
    else if (c === '"') string();
    else if (c === "-" || isDigit(c)) number();
    else if (c === "t") word("true");
    else if (c === "f") word("false");
    else if (c === "n") word("null");
    else fail("a value");
  };
  const object = () => {
    i++;
    skipWhitespace();
    if (text[i] === "}") return void i++;
    for (;;) {
      if (text[i] !== '"') fail("a property name");
      string();
      skipWhitespace();
      expect(":", "':'");
      skipWhitespace();
      value();
      skipWhitespace();
      if (text[i] === "}") return void i++;
      expect(",", "',' or '}'");
      skipWhitespace();
    }
  };
  const array = () => {
    i++;
    skipWhitespace();
    if (text[i] === "]") return void i++;
    for (;;) {
      value();
      skipWhitespace();
      if (text[i] === "]") return void i++;
      expect(",", "',' or ']'");
      skipWhitespace();
    }
  };
  const string = () => {
    i++;
    for (;;) {
      const c = text.charCodeAt(i);
      if (i >= text.length) fail("a closing quote");
      if (c === 0x22) return void i++;
      if (c < 0x20) fail("an escape sequence (control characters must be escaped)");
      if (c === 0x5c) {
        i++;
        if (text[i] === "u") {
          for (let k = 0; k < 4; k++) {
            i++;
            if (!/^[0-9A-Fa-f]$/.test(text[i] ?? "")) fail("a hexadecimal digit");
          }
        } else if (!'"\\/bfnrt'.includes(text[i] ?? "x")) {
          fail("an escape sequence");
        }
      }
      i++;
    }
  };
  const number = () => {
    if (text[i] === "-") i++;
    if (text[i] === "0") i++;
    else digits();
    if (text[i] === ".") {
      i++;
      digits();
    }
    if (text[i] === "e" || text[i] === "E") {
      i++;
      if (text[i] === "+" || text[i] === "-") i++;
      digits();
    }
  };
  const word = (literal: string) => {
    for (const char of literal) expect(char, `'${literal}'`);
  };

  try {
    skipWhitespace();
    value();
    skipWhitespace();
    if (i < text.length) fail("the end of the input");
    return undefined;
  } catch (error) {
    if (error instanceof Located) return error.at;
    throw error;
  }
}

const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9";

class Located {
  constructor(readonly at: JsonSyntaxError) {}
}
