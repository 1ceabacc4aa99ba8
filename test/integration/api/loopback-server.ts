import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from '../../support/loopback';

/** One request a {@link LoopbackServer} saw. */
export interface SeenRequest {
  method: string;
  path: string;
  body: string;
}

/** A plain HTTP server on 127.0.0.1 that records every request before its handler answers. */
export interface LoopbackServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly requests: SeenRequest[];
  close(): Promise<void>;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void | Promise<void>;

export async function startLoopbackServer(handler: Handler): Promise<LoopbackServer> {
  const requests: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? '', path: req.url ?? '', body });
      Promise.resolve(handler(req, res, body)).catch(() => res.destroy());
    });
  });
  return { ...(await listenOnLoopback(server)), requests };
}

/**
 * Writes `chunk` again and again, honouring backpressure, until `maxBytes` are written or
 * the client goes away; resolves with the bytes written. Bounded, so a client that reads
 * everything still ends the test.
 */
export async function writeUntilGone(res: ServerResponse, chunk: Buffer, maxBytes: number): Promise<number> {
  let written = 0;
  let gone = false;
  res.on('close', () => {
    gone = true;
  });
  while (!gone && written < maxBytes) {
    written += chunk.length;
    if (!res.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    }
  }
  if (!gone) res.end();
  return written;
}
