import type { IncomingMessage, ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { streamResult } from '../../../lib/simulator/reporting/result-stream';

/** A response that takes every write at once: it never makes the stream wait for 'drain'. */
class EagerResponse extends Writable {
  readonly chunks: Buffer[] = [];
  readonly socket = null;

  constructor() {
    super({ highWaterMark: 1 << 30 });
  }

  writeHead(): this {
    return this;
  }

  flushHeaders(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.chunks.push(chunk);
    callback();
  }
}

/** Streams `batches` into an EagerResponse; returns the events in the order they happened and the body. */
async function streamWithProbe(batches: string[]): Promise<{ events: string[]; body: string }> {
  const res = new EagerResponse();
  const events: string[] = [];
  // Runs on the event loop's next check phase: only if the stream lets go in between.
  setImmediate(() => events.push('other request'));
  await streamResult({
    req: { headers: {} } as IncomingMessage,
    res: res as unknown as ServerResponse,
    head: '{"data":[',
    batches,
    tail: () => {
      events.push('tail');
      return ']}';
    },
  });
  return { events, body: Buffer.concat(res.chunks).toString('utf8') };
}

describe('streamResult', () => {
  it('lets other work run before the body ends when the client never applies backpressure', async () => {
    // Prepare: 40 batches of 64 KiB, about 2.6 MB of rows.
    const row = `{"a":"${'x'.repeat(65_528)}"}`;
    // Act
    const { events, body } = await streamWithProbe(Array.from({ length: 40 }, () => row));
    // Assess
    expect(events).toEqual(['other request', 'tail']);
    expect(JSON.parse(body).data).toHaveLength(40);
  });

  it('writes nothing for an empty batch but still lets other work run', async () => {
    // Act
    const { events, body } = await streamWithProbe(['', '{"a":1}', '', '{"a":2}']);
    // Assess
    expect(events).toEqual(['other request', 'tail']);
    expect(body).toBe('{"data":[{"a":1},{"a":2}]}');
  });
});
