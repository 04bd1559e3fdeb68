/**
 * `JSON.parse` that keeps integers exact: every integer literal (no fraction, no exponent) becomes
 * a `bigint`, so an id above 2^53 keeps every digit. Other numbers are JS numbers. Duplicate keys
 * are refused rather than silently keeping the last one. Throws a SyntaxError naming the column.
 */
export function parseExactJson(text: string): unknown {
  const parser = new ExactJsonParser(text);
  const value = parser.value();
  parser.end();
  return value;
}

const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
const WHITESPACE = /[ \t\n\r]*/y;

class ExactJsonParser {
  private position = 0;

  constructor(private readonly text: string) {}

  value(): unknown {
    this.skipWhitespace();
    const char = this.text[this.position];
    if (char === "{") return this.object();
    if (char === "[") return this.array();
    if (char === '"') return this.string();
    if (char === "-" || (char !== undefined && char >= "0" && char <= "9")) return this.number();
    for (const [literal, value] of [
      ["true", true],
      ["false", false],
      ["null", null],
    ] as const) {
      if (this.text.startsWith(literal, this.position)) {
        this.position += literal.length;
        return value;
      }
    }
    throw this.error(char === undefined ? "unexpected end of JSON" : `unexpected character ${JSON.stringify(char)}`);
  }

  end(): void {
    this.skipWhitespace();
    if (this.position < this.text.length) throw this.error("unexpected text after the JSON value");
  }

  private object(): Record<string, unknown> {
    const result: Record<string, unknown> = {};
    this.position++;
    this.skipWhitespace();
    if (this.text[this.position] === "}") {
      this.position++;
      return result;
    }
    for (;;) {
      this.skipWhitespace();
      if (this.text[this.position] !== '"') throw this.error("expected a quoted key");
      const key = this.string();
      if (Object.hasOwn(result, key)) throw this.error(`duplicate key ${JSON.stringify(key)}`);
      this.expect(":");
      // defineProperty, so that a "__proto__" key is an ordinary field (then refused as unknown).
      Object.defineProperty(result, key, { value: this.value(), enumerable: true, writable: true, configurable: true });
      this.skipWhitespace();
      if (this.text[this.position] === ",") {
        this.position++;
        continue;
      }
      this.expect("}");
      return result;
    }
  }

  private array(): unknown[] {
    const result: unknown[] = [];
    this.position++;
    this.skipWhitespace();
    if (this.text[this.position] === "]") {
      this.position++;
      return result;
    }
    for (;;) {
      result.push(this.value());
      this.skipWhitespace();
      if (this.text[this.position] === ",") {
        this.position++;
        continue;
      }
      this.expect("]");
      return result;
    }
  }

  private string(): string {
    // Find the closing quote (skipping escapes), then let JSON.parse decode and check the escapes.
    let cursor = this.position + 1;
    for (;;) {
      const char = this.text[cursor];
      if (char === undefined) throw this.error("unterminated string");
      if (char === "\\") cursor += 2;
      else if (char === '"') break;
      else cursor++;
    }
    const literal = this.text.slice(this.position, cursor + 1);
    try {
      const value = JSON.parse(literal) as string;
      this.position = cursor + 1;
      return value;
    } catch {
      throw this.error("invalid string");
    }
  }

  private number(): number | bigint {
    NUMBER.lastIndex = this.position;
    const match = NUMBER.exec(this.text);
    if (match === null) throw this.error("invalid number");
    this.position += match[0].length;
    const isInteger = match[1] === undefined && match[2] === undefined;
    return isInteger ? BigInt(match[0]) : Number(match[0]);
  }

  private expect(char: string): void {
    this.skipWhitespace();
    if (this.text[this.position] !== char) throw this.error(`expected ${JSON.stringify(char)}`);
    this.position++;
  }

  private skipWhitespace(): void {
    WHITESPACE.lastIndex = this.position;
    WHITESPACE.exec(this.text);
    this.position = WHITESPACE.lastIndex;
  }

  private error(message: string): SyntaxError {
    return new SyntaxError(`${message} at column ${this.position + 1}`);
  }
}
