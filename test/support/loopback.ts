import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A test server listening on 127.0.0.1 (any free port), and how to end it. */
export interface Listening {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Ends every connection (kept-alive and still-streaming ones would hold close() open), then the server. */
  close(): Promise<void>;
}

/** Starts `server` on 127.0.0.1 and a free port: never on another interface in tests. */
export async function listenOnLoopback(server: Server): Promise<Listening> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
