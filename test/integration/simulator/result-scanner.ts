/**
 * Test helper: checks a report-result document as it streams in, without holding it.
 * The members before `data` and after it are JSON.parsed; every row is JSON.parsed on
 * its own, found by a string-aware brace scan. Throws on anything malformed.
 */
export class ResultScanner {
  head: Record<string, unknown> | undefined;
  tail: Record<string, unknown> | undefined;
  rows = 0;
  /** The first row, for spot checks. */
  firstRow: Record<string, unknown> | undefined;
  #phase: 'head' | 'rows' | 'tail' = 'head';
  #buffer = '';
  #depth = 0;
  #inString = false;
  #escaped = false;
  #expectSeparator = false;

  push(text: string): void {
    let i = 0;
    if (this.#phase === 'head') {
      this.#buffer += text;
      const at = this.#buffer.indexOf('"data":[');
      if (at < 0) return;
      const head = this.#buffer.slice(0, at + '"data":['.length);
      this.head = JSON.parse(`${head}]}`) as Record<string, unknown>;
      text = this.#buffer.slice(head.length);
      this.#buffer = '';
      this.#phase = 'rows';
    }
    if (this.#phase === 'rows') {
      let rowStart = this.#depth > 0 ? 0 : -1;
      for (; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (this.#inString) {
          if (this.#escaped) this.#escaped = false;
          else if (c === 0x5c) this.#escaped = true;
          else if (c === 0x22) this.#inString = false;
          continue;
        }
        if (c === 0x22) {
          this.#inString = true;
        } else if (c === 0x7b) {
          if (this.#depth === 0) {
            if (this.#expectSeparator) throw new Error(`missing comma before row ${this.rows + 1}`);
            rowStart = i;
          }
          this.#depth++;
        } else if (c === 0x7d) {
          this.#depth--;
          if (this.#depth === 0) {
            const row = JSON.parse(this.#buffer + text.slice(rowStart, i + 1)) as Record<string, unknown>;
            if (this.rows === 0) this.firstRow = row;
            this.rows++;
            this.#buffer = '';
            rowStart = -1;
            this.#expectSeparator = true;
          }
        } else if (this.#depth === 0) {
          if (c === 0x2c && this.#expectSeparator) this.#expectSeparator = false;
          else if (c === 0x5d) {
            this.#phase = 'tail';
            this.#buffer = '';
            i++;
            break;
          } else throw new Error(`unexpected character ${String.fromCharCode(c)} between rows`);
        }
      }
      if (this.#phase === 'rows') {
        if (rowStart >= 0) this.#buffer += text.slice(rowStart);
        return;
      }
    }
    this.#buffer += text.slice(i);
  }

  /** Parses what followed the rows; call once the body ended. */
  finish(): void {
    if (this.#phase !== 'tail') throw new Error(`document ended in phase ${this.#phase}`);
    if (!this.#buffer.startsWith(',')) throw new Error('no members after data');
    this.tail = JSON.parse(`{${this.#buffer.slice(1)}`) as Record<string, unknown>;
  }
}
