import { appendFile, mkdir } from 'node:fs/promises';
import * as path from 'node:path';

/**
 * Where a notice goes (the night's digest): the deployment's alarm topic (SNS, sns-notice-topic.ts)
 * or, on this machine, a file of JSON lines. A notice is one subject and one plain-text body.
 */
export interface Notice {
  subject: string;
  body: string;
}

export interface NoticeTopic {
  publish(notice: Notice): Promise<void>;
}

/** Appends each notice as one JSON line to a local file (the local run's "topic"). */
export class LocalFileNoticeTopic implements NoticeTopic {
  readonly #file: string;

  constructor(file: string) {
    this.#file = file;
  }

  async publish(notice: Notice): Promise<void> {
    await mkdir(path.dirname(this.#file), { recursive: true });
    await appendFile(this.#file, `${JSON.stringify({ at: new Date().toISOString(), ...notice })}\n`, {
      mode: 0o600,
    });
  }
}
