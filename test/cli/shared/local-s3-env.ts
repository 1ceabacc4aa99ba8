/**
 * The environment of a built program that reads a lake on the local S3 (fauxqs at
 * `endpoint`): the AWS SDK takes the endpoint, region and credentials from its process's
 * environment, as an operator's shell gives them.
 */
export function localS3Env(endpoint: string): Record<string, string> {
  return {
    AWS_ENDPOINT_URL_S3: endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
  };
}
