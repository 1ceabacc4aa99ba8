import { type CfnResource, Stack, Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * cdk-nag names each wildcard of an IAM policy as its own finding, e.g.
 * `AwsSolutions-IAM5[Resource::<DataLakeBucket1234.Arn>/lake/*]`; these helpers spell
 * those ids from the constructs, so an acknowledgement follows a renamed construct.
 */

/** `<LogicalId.Arn>` as cdk-nag prints a `Fn::GetAtt` of a resource's ARN. */
export function arnOf(resource: IConstruct): string {
  const cfn = (resource.node.defaultChild ?? resource) as CfnResource;
  return `<${Stack.of(resource).resolve(cfn.logicalId) as string}.Arn>`;
}

/** Acknowledges each listed finding of a rule on a construct (and its children), with one reason. */
export function acknowledge(
  construct: IConstruct,
  rule: string,
  findings: readonly string[] | undefined,
  reason: string,
): void {
  const ids = findings === undefined ? [rule] : findings.map((f) => `${rule}[${f}]`);
  for (const id of ids) Validations.of(construct).acknowledge({ id, reason });
}
