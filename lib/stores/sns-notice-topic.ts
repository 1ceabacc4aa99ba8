import { fileURLToPath } from 'node:url';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { LocalFileNoticeTopic, type Notice, type NoticeTopic } from './notice-topic';
import { StoreUriError } from './store-uri-error';

/** How long one Publish may take, its SDK retries included. */
const PUBLISH_TIMEOUT_MS = 20_000;

/** Publishes a notice to an SNS topic (KMS-encrypted topics need kms:GenerateDataKey* and kms:Decrypt). */
export class SnsNoticeTopic implements NoticeTopic {
  readonly #client: SNSClient;
  readonly #topicArn: string;

  constructor(topicArn: string, client: SNSClient = new SNSClient({ maxAttempts: 3 })) {
    this.#topicArn = topicArn;
    this.#client = client;
  }

  async publish(notice: Notice): Promise<void> {
    await this.#client.send(
      new PublishCommand({ TopicArn: this.#topicArn, Subject: notice.subject, Message: notice.body }),
      { abortSignal: AbortSignal.timeout(PUBLISH_TIMEOUT_MS) },
    );
  }
}

/** `arn:aws:sns:...` -> the topic; `file:///path` -> a local file of JSON lines; names the setting when invalid. */
export function noticeTopicFromUri(setting: string, uri: string, sns?: () => SNSClient): NoticeTopic {
  if (/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/.test(uri)) {
    return new SnsNoticeTopic(uri, sns?.());
  }
  if (uri.startsWith('file:')) {
    try {
      return new LocalFileNoticeTopic(fileURLToPath(uri));
    } catch {
      // reported below
    }
  }
  throw new StoreUriError(setting, uri, 'an SNS topic ARN or a file:/// URI');
}
