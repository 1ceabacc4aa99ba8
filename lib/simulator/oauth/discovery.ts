import { SUPPORTED_SCOPES } from './authorize-request';

/** A minimal OpenID Provider metadata document, so generic tools can find the endpoints. */
export function discoveryDocument(
  issuer: string,
  paths: { authorize: string; token: string; jwks: string },
): Record<string, unknown> {
  const origin = issuer.replace(/\/+$/, '');
  return {
    issuer,
    authorization_endpoint: `${origin}${paths.authorize}`,
    token_endpoint: `${origin}${paths.token}`,
    jwks_uri: `${origin}${paths.jwks}`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    scopes_supported: SUPPORTED_SCOPES,
    token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
    code_challenge_methods_supported: ['S256', 'plain'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['ES256'],
  };
}
