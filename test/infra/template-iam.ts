import { createHash } from 'node:crypto';
import { type EvaluationResult, runSimulation } from '@cloud-copilot/iam-simulate';
import type { IamPermission } from '../../lib/stores/aws-calls';

/**
 * A synthesized template's IAM, made concrete for one account and region: intrinsic
 * functions resolved to the ARNs and names CloudFormation would give (generated names
 * for resources without one), each role's policies collected, and requests evaluated
 * with @cloud-copilot/iam-simulate against the identity policies and, where the target
 * has one, its resource policy (bucket policy, topic policy, key policy).
 */

export const ACCOUNT = '123456789012';
export const REGION = 'eu-west-2';
export const STACK_NAME = 'ReportExport';

type Json = unknown;
interface Resource {
  Type: string;
  Properties?: Record<string, Json>;
}
type PolicyDocument = { Version?: string; Statement: Json[] };

/**
 * AWS managed policies the template attaches, as AWS publishes them. A managed policy not
 * listed here fails the evaluation: nothing reaches a role unread.
 */
const MANAGED_POLICIES: Record<string, PolicyDocument> = {
  'arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole': {
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Action: ['logs:CreateLogGroup', 'logs:CreateLogStream', 'logs:PutLogEvents'],
        Resource: '*',
      },
    ],
  },
};

/** A deterministic suffix, as CloudFormation appends a random one to generated names. */
const suffix = (id: string, length = 12) =>
  createHash('sha256').update(id).digest('hex').slice(0, length).toUpperCase();

/** A role as a principal: its ARN, the session a service assumes it in, and its policies. */
export interface RolePrincipal {
  readonly logicalId: string;
  readonly roleArn: string;
  readonly sessionArn: string;
  readonly policies: readonly { name: string; policy: PolicyDocument }[];
  /** The session's tags (`aws:PrincipalTag/<key>` in its requests). */
  readonly sessionTags?: Readonly<Record<string, string>>;
}

/** A request's condition keys; a multi-valued key (`aws:TagKeys`) as an array. */
export type RequestContext = Readonly<Record<string, string | readonly string[]>>;

export class TemplateIam {
  readonly resources: Record<string, Resource>;

  constructor(template: { Resources?: Record<string, Resource> }) {
    this.resources = template.Resources ?? {};
  }

  #resource(id: string): Resource {
    const r = this.resources[id];
    if (r === undefined) throw new Error(`no resource ${id} in the template`);
    return r;
  }

  /** The resources of a type, by logical id. */
  ofType(type: string): [string, Resource][] {
    return Object.entries(this.resources).filter(([, r]) => r.Type === type);
  }

  /** The physical name CloudFormation gives a resource: its name property, or a generated one. */
  #name(id: string): string {
    const r = this.#resource(id);
    const named = (prop: string) => {
      const v = r.Properties?.[prop];
      return v === undefined ? undefined : String(this.resolve(v));
    };
    switch (r.Type) {
      case 'AWS::S3::Bucket':
        return (
          named('BucketName') ?? `${STACK_NAME.toLowerCase()}-${id.toLowerCase()}-${suffix(id).toLowerCase()}`
        );
      case 'AWS::Lambda::Function':
        return named('FunctionName') ?? `${STACK_NAME}-${id}-${suffix(id)}`;
      case 'AWS::IAM::Role':
        return named('RoleName') ?? `${STACK_NAME}-${id}-${suffix(id)}`;
      case 'AWS::Logs::LogGroup':
        return named('LogGroupName') ?? `${STACK_NAME}-${id}-${suffix(id)}`;
      case 'AWS::SNS::Topic':
        return named('TopicName') ?? `${STACK_NAME}-${id}-${suffix(id)}`;
      case 'AWS::StepFunctions::StateMachine':
        return named('StateMachineName') ?? `${id}-${suffix(id)}`;
      case 'AWS::SQS::Queue':
        return named('QueueName') ?? `${STACK_NAME}-${id}-${suffix(id)}`;
      case 'AWS::SecretsManager::Secret':
        return named('Name') ?? `${id}-${suffix(id)}`;
      case 'AWS::Scheduler::ScheduleGroup':
        return named('Name') ?? `${STACK_NAME}-${id}-${suffix(id)}`;
      case 'AWS::KMS::Key': {
        const h = suffix(id, 32).toLowerCase();
        return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
      }
      default:
        throw new Error(`no physical name rule for ${r.Type} (${id})`);
    }
  }

  #arn(id: string): string {
    const r = this.#resource(id);
    const name = this.#name(id);
    const regional = (service: string, rest: string) => `arn:aws:${service}:${REGION}:${ACCOUNT}:${rest}`;
    switch (r.Type) {
      case 'AWS::S3::Bucket':
        return `arn:aws:s3:::${name}`;
      case 'AWS::Lambda::Function':
        return regional('lambda', `function:${name}`);
      case 'AWS::IAM::Role':
        return `arn:aws:iam::${ACCOUNT}:role/${name}`;
      case 'AWS::Logs::LogGroup':
        return regional('logs', `log-group:${name}:*`);
      case 'AWS::SNS::Topic':
        return regional('sns', name);
      case 'AWS::StepFunctions::StateMachine':
        return regional('states', `stateMachine:${name}`);
      case 'AWS::SQS::Queue':
        return regional('sqs', name);
      case 'AWS::SecretsManager::Secret':
        return regional('secretsmanager', `secret:${name}-AbCdEf`);
      case 'AWS::KMS::Key':
        return regional('kms', `key/${name}`);
      default:
        throw new Error(`no ARN rule for ${r.Type} (${id})`);
    }
  }

  #ref(id: string): string {
    const pseudo: Record<string, string> = {
      'AWS::Partition': 'aws',
      'AWS::Region': REGION,
      'AWS::AccountId': ACCOUNT,
      'AWS::StackName': STACK_NAME,
      'AWS::URLSuffix': 'amazonaws.com',
    };
    if (pseudo[id] !== undefined) return pseudo[id];
    const type = this.#resource(id).Type;
    // What Ref returns, by type: an ARN for these, the name or id for the others.
    if (['AWS::SNS::Topic', 'AWS::StepFunctions::StateMachine', 'AWS::SecretsManager::Secret'].includes(type))
      return this.#arn(id);
    if (type === 'AWS::SQS::Queue') return `https://sqs.${REGION}.amazonaws.com/${ACCOUNT}/${this.#name(id)}`;
    return this.#name(id);
  }

  #getAtt(id: string, attribute: string): string {
    const type = this.#resource(id).Type;
    if (attribute === 'Arn' || (type === 'AWS::SNS::Topic' && attribute === 'TopicArn')) return this.#arn(id);
    if (['Name', 'TopicName', 'QueueName', 'KeyId'].includes(attribute)) return this.#name(id);
    throw new Error(`no rule for Fn::GetAtt ${id}.${attribute}`);
  }

  #sub(text: string, vars: Record<string, Json>): string {
    return text.replace(/\$\{(!?)([^}]+)\}/g, (_, literal: string, name: string) => {
      if (literal === '!') return `\${${name}}`;
      if (name in vars) return String(this.resolve(vars[name]));
      const [ref, attribute] = name.split('.');
      return attribute === undefined ? this.#ref(ref as string) : this.#getAtt(ref as string, attribute);
    });
  }

  /** Resolves every intrinsic function in a value (Ref, Fn::GetAtt, Fn::Join, Fn::Sub, Fn::Select, Fn::Split). */
  resolve(value: Json): Json {
    if (Array.isArray(value)) return value.map((v) => this.resolve(v));
    if (value === null || typeof value !== 'object') return value;
    const entries = Object.entries(value);
    const [key, arg] = entries[0] ?? [];
    if (entries.length === 1 && (key === 'Ref' || key?.startsWith('Fn::'))) {
      switch (key) {
        case 'Ref':
          return this.#ref(arg as string);
        case 'Fn::GetAtt': {
          const [id, attribute] = Array.isArray(arg) ? arg : String(arg).split('.');
          return this.#getAtt(id as string, attribute as string);
        }
        case 'Fn::Join': {
          const [sep, parts] = arg as [string, Json[]];
          return (this.resolve(parts) as Json[]).map(String).join(sep);
        }
        case 'Fn::Sub':
          return Array.isArray(arg)
            ? this.#sub(arg[0] as string, arg[1] as Record<string, Json>)
            : this.#sub(arg as string, {});
        case 'Fn::Select': {
          const [index, list] = arg as [Json, Json];
          return (this.resolve(list) as Json[])[Number(this.resolve(index))];
        }
        case 'Fn::Split': {
          const [sep, text] = arg as [string, Json];
          return String(this.resolve(text)).split(sep);
        }
        default:
          throw new Error(`unsupported intrinsic ${key}`);
      }
    }
    return Object.fromEntries(entries.map(([k, v]) => [k, this.resolve(v)]));
  }

  /** The logical id of the resource of a type whose ARN (or Ref value) is `arn`. */
  idOf(type: string, arn: string): string {
    const found = this.ofType(type).find(([id]) => this.#arn(id) === arn || this.#ref(id) === arn);
    if (found === undefined) throw new Error(`no ${type} with ARN ${arn}`);
    return found[0];
  }

  arnOf(id: string): string {
    return this.#arn(id);
  }

  /**
   * A role with its inline policies (AWS::IAM::Policy attached to it, and its own) and managed
   * ones, in a session named `session`, with the session's tags.
   */
  role(roleArn: string, session: string, sessionTags?: Record<string, string>): RolePrincipal {
    const id = this.idOf('AWS::IAM::Role', roleArn);
    const props = this.#resource(id).Properties ?? {};
    const policies: { name: string; policy: PolicyDocument }[] = [];
    for (const [policyId, p] of this.ofType('AWS::IAM::Policy')) {
      const roles = (p.Properties?.Roles ?? []) as Json[];
      if (roles.some((r) => (r as { Ref?: string }).Ref === id))
        policies.push({
          name: policyId,
          policy: this.resolve(p.Properties?.PolicyDocument) as PolicyDocument,
        });
    }
    for (const p of (props.Policies ?? []) as { PolicyName: string; PolicyDocument: Json }[])
      policies.push({ name: p.PolicyName, policy: this.resolve(p.PolicyDocument) as PolicyDocument });
    for (const arn of this.resolve(props.ManagedPolicyArns ?? []) as string[]) {
      const policy = MANAGED_POLICIES[arn];
      if (policy === undefined) throw new Error(`role ${id} has managed policy ${arn}, unknown to this test`);
      policies.push({ name: arn, policy });
    }
    const name = roleArn.slice(roleArn.lastIndexOf('/') + 1);
    return {
      logicalId: id,
      roleArn,
      sessionArn: `arn:aws:sts::${ACCOUNT}:assumed-role/${name}/${session}`,
      policies,
      ...(sessionTags === undefined ? {} : { sessionTags }),
    };
  }

  /** The resource policy that governs a target: its bucket's, its topic's, its key's, or a role's trust. */
  resourcePolicy(resourceArn: string): PolicyDocument | undefined {
    if (resourceArn.startsWith(`arn:aws:iam::${ACCOUNT}:role/`)) {
      const props = this.#resource(this.idOf('AWS::IAM::Role', resourceArn)).Properties ?? {};
      return this.resolve(props.AssumeRolePolicyDocument) as PolicyDocument;
    }
    const s3 = /^arn:aws:s3:::([^/]+)/.exec(resourceArn);
    if (s3 !== null) {
      const found = this.ofType('AWS::S3::BucketPolicy').find(
        ([, p]) => this.resolve(p.Properties?.Bucket) === s3[1],
      );
      return found === undefined
        ? undefined
        : (this.resolve(found[1].Properties?.PolicyDocument) as PolicyDocument);
    }
    if (resourceArn.startsWith('arn:aws:sns:')) {
      const found = this.ofType('AWS::SNS::TopicPolicy').find(([, p]) =>
        (this.resolve(p.Properties?.Topics) as string[]).includes(resourceArn),
      );
      return found === undefined
        ? undefined
        : (this.resolve(found[1].Properties?.PolicyDocument) as PolicyDocument);
    }
    if (resourceArn.startsWith('arn:aws:kms:')) {
      const found = this.ofType('AWS::KMS::Key').find(([id]) => this.#arn(id) === resourceArn);
      // KMS refuses any request on a key without a key policy that allows it.
      return found === undefined
        ? { Version: '2012-10-17', Statement: [] }
        : (this.resolve(found[1].Properties?.KeyPolicy) as PolicyDocument);
    }
    return undefined;
  }

  /**
   * Evaluates one permission for a role, over TLS (the buckets' and the topic's policies
   * deny anything else) unless the permission's context says otherwise, with the role's ARN
   * as `aws:PrincipalArn` (the bucket policy exempts the tables' writers by it).
   */
  async evaluate(
    principal: RolePrincipal,
    permission: Omit<IamPermission, 'context'> & { readonly context?: RequestContext },
  ): Promise<EvaluationResult> {
    const resourcePolicy = this.resourcePolicy(permission.resource);
    const tags = Object.entries(principal.sessionTags ?? {}).map(([k, v]) => [`aws:PrincipalTag/${k}`, v]);
    const response = await runSimulation(
      {
        request: {
          principal: principal.sessionArn,
          action: permission.action,
          resource: { resource: permission.resource, accountId: ACCOUNT },
          contextVariables: {
            'aws:SecureTransport': 'true',
            // What AWS sets for a role's session (the simulator does not derive it): the role's ARN.
            'aws:PrincipalArn': principal.roleArn,
            ...Object.fromEntries(tags),
            ...(permission.context as Record<string, string | string[]> | undefined),
          },
        },
        identityPolicies: [...principal.policies],
        serviceControlPolicies: [],
        resourceControlPolicies: [],
        ...(resourcePolicy === undefined ? {} : { resourcePolicy }),
      },
      {},
    );
    if (response.resultType === 'error') {
      throw new Error(
        `the simulator refused ${permission.action} on ${permission.resource}: ${JSON.stringify(response.errors)}`,
      );
    }
    return response.overallResult;
  }
}
