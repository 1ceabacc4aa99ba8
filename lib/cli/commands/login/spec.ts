import { defineCommand, HELP_OPTION } from '../../../command-line';
import { CONFIG_FILE_OPTION, configOptions } from '../../shared/config';
import { BROWSER_LOGIN_OPTIONS } from '../../shared/tenants-spec';

/** `login`: the authorization-code flow for a production tenant, into the deployment's secret. */
export const LOGIN_COMMAND = defineCommand({
  name: 'login',
  usage: 'Usage: report-export login [options]',
  summary: 'Signs in to the service in a browser and stores client credentials and tokens in the secret.',
  description: `Prints (and opens, on a terminal) the authorization URL, listens on the registered
loopback redirect (http, or https with a self-signed certificate made for this login),
checks the state, uses PKCE, exchanges the code and stores client id and secret, URLs
and tokens in a Secrets Manager secret (--secret-id) or a local file (--secret-file,
mode 0600). No token or secret is ever printed. The client secret comes from
REPORT_EXPORT_CLIENT_SECRET or the config file, else it is asked for (not echoed).`,
  options: {
    ...configOptions([
      'region',
      'baseUrl',
      'authUrl',
      'clientId',
      'redirectUri',
      'secretFile',
      'secretId',
      'leaseStore',
    ]),
    ...CONFIG_FILE_OPTION,
    ...BROWSER_LOGIN_OPTIONS,
    json: { type: 'boolean', help: 'print one JSON line (where the secret is, expiry; never a token)' },
    ...HELP_OPTION,
  },
  examples: [
    'report-export login --region uk --client-id my-app --secret-file ./.report-export/login.json',
    'REPORT_EXPORT_CLIENT_SECRET=... report-export login --region eu --client-id my-app --secret-id arn:aws:secretsmanager:eu-west-1:123456789012:secret:ReportExport',
    'report-export login --base-url http://127.0.0.1:4010/api --auth-url http://127.0.0.1:4010 --redirect-uri https://127.0.0.1:8000/',
  ],
  notes: `Exit status: 0 signed in and stored, 1 failed or timed out, 2 usage or configuration error
(with --secret-id: AWS credentials, region or the secret missing, checked before the sign-in).`,
});
