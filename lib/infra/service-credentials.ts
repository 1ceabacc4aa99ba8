import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';

interface ServiceCredentialsProps {
  /**
   * What happens to the secret (and the tenant's refresh token in it) when the stack goes.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * The secret the login fills: client id and secret, auth and base URLs, redirect URI,
 * refresh token, and the cached access token with its expiry (`ServiceSecret` in
 * lib/workflow/service-secret.ts). The template carries no value: CloudFormation
 * generates a random placeholder, which the workflow reads as "not logged in"
 * (LoginRequiredError) until a real value is put.
 */
export class ServiceCredentials extends Construct {
  readonly secret: secretsmanager.Secret;

  constructor(scope: Construct, id: string, props: ServiceCredentialsProps = {}) {
    super(scope, id);
    this.secret = new secretsmanager.Secret(this, 'Secret', {
      description:
        'report-export: OAuth client credentials, service URLs, refresh token and cached access token (put by the login; see lib/infra/README.md)',
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
    Validations.of(this.secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The workflow rotates the content itself: every refresh-token grant stores the new (rotated) refresh token under a lease. A Secrets Manager rotation Lambda could only repeat that grant and would race the workflow.',
    });
  }
}
