import { type ResolvedConfig, secretLocation } from '../shared/config';
import type { IOStreams } from '../shared/io-streams';
import { type AwsClients, checkAwsForSecret, serviceClientFromSecret } from './secret-access';

export { STORED_LOGIN_OPTIONS } from './stored-login-options';

/**
 * A client of the service on the stored login, for `command`: what AWS the secret needs is
 * checked first (exit 2 naming it); tokens are refreshed under the secret's lease when due,
 * and a rotated refresh token is stored back before use. `explain` turns a failed
 * connection to the login's address into an error naming the login and how to refresh it.
 */
export async function storedLoginClient(
  command: string,
  config: ResolvedConfig,
  io: IOStreams,
  deps: AwsClients,
): Promise<Pick<Awaited<ReturnType<typeof serviceClientFromSecret>>, 'client' | 'explain'>> {
  const location = secretLocation(config, io.cwd);
  const aws = await checkAwsForSecret(command, 'read', config, location, deps, io.env);
  return serviceClientFromSecret(config, io, aws);
}
