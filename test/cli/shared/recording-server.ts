import { createServer, type IncomingHttpHeaders } from 'node:http';
import { listenOnLoopback } from '../../support/loopback';

/** A request the server received. */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** The answer to a request: status, headers and body. */
export interface CannedResponse {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * An HTTP server on 127.0.0.1 that records every request and answers each with
 * `respond(request)` (default 503): a stand-in for the service or an AWS endpoint
 * (AWS_ENDPOINT_URL), so a test can say what reached it, and nothing reaches AWS.
 */
export interface RecordingServer {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startRecordingServer(
  respond: (request: RecordedRequest) => CannedResponse = () => ({ status: 503 }),
): Promise<RecordingServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      const recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      requests.push(recorded);
      const answer = respond(recorded);
      res.writeHead(answer.status, answer.headers ?? {});
      res.end(answer.body ?? '');
    });
  });
  return { ...(await listenOnLoopback(server)), requests };
}

/** An AWS JSON-protocol error (Step Functions, Secrets Manager): `__type` names it. */
export function awsJsonError(status: number, type: string, message: string): CannedResponse {
  return {
    status,
    headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-errortype': type },
    body: JSON.stringify({ __type: type, message }),
  };
}
