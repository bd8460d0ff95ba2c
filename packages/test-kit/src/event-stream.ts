/**
 * Reading a Server-Sent Events answer (text/event-stream) block by block, in tests: each block's
 * id, event type, data and comment lines, as the HTML standard's parser splits them (fields per
 * line, blocks ended by a blank line). Waits for what the test asks for, never for a time.
 */

export interface StreamBlock {
  readonly id?: string;
  readonly event?: string;
  readonly data?: string;
  readonly comments: readonly string[];
}

export class EventReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #text = "";
  /** the last id a block carried, as an EventSource keeps it */
  lastId: string | undefined;

  constructor(res: Response) {
    if (res.body === null) throw new Error(`no stream: ${res.status}`);
    this.#reader = res.body.getReader();
  }

  /** the next block, or undefined once the stream has ended */
  async next(): Promise<StreamBlock | undefined> {
    for (;;) {
      const end = this.#text.indexOf("\n\n");
      if (end >= 0) {
        const block = parseBlock(this.#text.slice(0, end));
        this.#text = this.#text.slice(end + 2);
        if (block.id !== undefined) this.lastId = block.id;
        return block;
      }
      const { done, value } = await this.#reader.read();
      if (done) return undefined;
      this.#text += this.#decoder.decode(value, { stream: true });
    }
  }

  /** the next `n` events of type `change`, their data parsed; fewer when the stream ends first */
  async changes(n: number): Promise<{ id: string; data: Record<string, any> }[]> {
    const out: { id: string; data: Record<string, any> }[] = [];
    while (out.length < n) {
      const block = await this.next();
      if (block === undefined) break;
      if (block.event === "change") out.push({ id: block.id!, data: JSON.parse(block.data!) });
    }
    return out;
  }

  /** every block until the stream ends */
  async rest(): Promise<StreamBlock[]> {
    const blocks: StreamBlock[] = [];
    for (let block = await this.next(); block !== undefined; block = await this.next()) blocks.push(block);
    return blocks;
  }

  /** leaves the stream (the client disconnects) */
  async cancel(): Promise<void> {
    await this.#reader.cancel();
  }
}

function parseBlock(text: string): StreamBlock {
  const fields: Record<string, string> = {};
  const comments: string[] = [];
  for (const line of text.split("\n")) {
    if (line.startsWith(":")) comments.push(line.slice(1).trim());
    else {
      const colon = line.indexOf(":");
      const name = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      fields[name] = name === "data" && fields.data !== undefined ? `${fields.data}\n${value}` : value;
    }
  }
  return { ...fields, comments };
}
