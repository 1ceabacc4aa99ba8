import { GetDatabaseCommand, GetTablesCommand } from '@aws-sdk/client-glue';
import {
  GetDataLakeSettingsCommand,
  ListPermissionsCommand,
  type Resource,
} from '@aws-sdk/client-lakeformation';
import { awsErrorName, awsErrorText, callOptions, type DoctorClients, isAccessDenied } from './aws-clients';
import { type Check, check } from './report';

/**
 * `aws.lake-formation`: whether the Glue database the stack uses is governed by IAM alone,
 * as the stack needs: its functions' roles and the Glue optimizers reach the tables through
 * IAM policies only, and hold no Lake Formation grant; under Lake Formation permissions their
 * GetTable and UpdateTable are refused and every commit fails.
 *
 * How AWS documents the mode (Lake Formation Developer Guide):
 * - "Changing the default settings for your data lake" (change-settings.html) and the API
 *   reference of DataLakeSettings (GetDataLakeSettings): CreateDatabaseDefaultPermissions and
 *   CreateTableDefaultPermissions "specify whether access control on newly created
 *   databases/tables is managed by Lake Formation permissions or exclusively by IAM
 *   permissions": an entry granting ALL to IAM_ALLOWED_PRINCIPALS is the setting "Use only IAM
 *   access control"; an empty list means Lake Formation permissions.
 * - "Upgrading AWS Glue data permissions to the Lake Formation model"
 *   (upgrade-glue-lake-formation.html): an existing database or table stays under IAM while
 *   the Super (ALL) permission of the IAMAllowedPrincipals group is granted on it; revoking
 *   it is what moves it to Lake Formation. Its ListPermissions for IAM_ALLOWED_PRINCIPALS says
 *   which; the database's own CreateTableDefaultPermissions (Glue GetDatabase) decides the
 *   tables created in it later.
 * Not judged: hybrid access mode opt-ins (ListLakeFormationOptIns), which govern only the
 * principals opted in; the stack's roles are never opted in by the stack.
 */

const IAM_ALLOWED_PRINCIPALS = 'IAM_ALLOWED_PRINCIPALS';

/** Pages of one listing read at the most (a database of this stack has a handful of tables). */
const MAX_PAGES = 10;

/** Lake Formation's and Glue's PrincipalPermissions, as far as read here. */
interface PrincipalPermissions {
  Principal?: { DataLakePrincipalIdentifier?: string | undefined } | undefined;
  Permissions?: readonly string[] | undefined;
}

/** "Use only IAM access control": ALL granted to IAM_ALLOWED_PRINCIPALS. */
function iamOnly(list: readonly PrincipalPermissions[] | undefined): boolean {
  return (list ?? []).some(
    (p) =>
      p.Principal?.DataLakePrincipalIdentifier === IAM_ALLOWED_PRINCIPALS &&
      p.Permissions?.includes('ALL') === true,
  );
}

const IAM_FIX_DEFAULTS =
  "tick 'Use only IAM access control for new databases' and '... for new tables in new databases' in Lake Formation > Data Catalog settings (PutDataLakeSettings: CreateDatabaseDefaultPermissions and CreateTableDefaultPermissions [{Principal: IAM_ALLOWED_PRINCIPALS, Permissions: [ALL]}]) before deploying";

/** The grant that puts `resource` back under IAM, as a data lake administrator runs it. */
const grantFix = (resource: Resource, more = '') =>
  `as a data lake administrator: aws lakeformation grant-permissions --principal DataLakePrincipalIdentifier=IAM_ALLOWED_PRINCIPALS --permissions ALL --resource '${JSON.stringify(resource)}'${more}; or deploy with another databaseName`;

/** Whether IAMAllowedPrincipals holds ALL on `resource` (ListPermissions, paged). */
async function iamAllowedOn(
  clients: DoctorClients,
  resource: Resource,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  let token: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const out = await clients.lakeFormation.send(
      new ListPermissionsCommand({
        Principal: { DataLakePrincipalIdentifier: IAM_ALLOWED_PRINCIPALS },
        Resource: resource,
        ...(token === undefined ? {} : { NextToken: token }),
      }),
      callOptions(signal),
    );
    if (iamOnly(out.PrincipalResourcePermissions)) return true;
    token = out.NextToken;
    if (token === undefined) return false;
  }
  return false;
}

/** The names of the database's tables (GetTables, paged). */
async function tableNames(
  clients: DoctorClients,
  database: string,
  signal: AbortSignal | undefined,
): Promise<string[]> {
  const names: string[] = [];
  let token: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const out = await clients.glue.send(
      new GetTablesCommand({ DatabaseName: database, ...(token === undefined ? {} : { NextToken: token }) }),
      callOptions(signal),
    );
    for (const t of out.TableList ?? []) if (t.Name !== undefined) names.push(t.Name);
    token = out.NextToken;
    if (token === undefined) break;
  }
  return names;
}

export async function lakeFormationCheck(
  database: string,
  clients: DoctorClients,
  signal: AbortSignal | undefined,
): Promise<Check> {
  const more = { subject: database };
  try {
    const settings = (
      await clients.lakeFormation.send(new GetDataLakeSettingsCommand({}), callOptions(signal))
    ).DataLakeSettings;
    const existing = await clients.glue
      .send(new GetDatabaseCommand({ Name: database }), callOptions(signal))
      .catch((error: unknown) => {
        if (awsErrorName(error) === 'EntityNotFoundException') return undefined;
        throw error;
      });
    if (existing?.Database === undefined) {
      // Not deployed yet: the stack creates it, and it gets what the account's defaults say.
      const missing = [
        ...(iamOnly(settings?.CreateDatabaseDefaultPermissions) ? [] : ['new databases']),
        ...(iamOnly(settings?.CreateTableDefaultPermissions) ? [] : ['new tables']),
      ];
      if (missing.length > 0) {
        return check(
          'aws.lake-formation',
          'fail',
          `${missing.join(' and ')} of this account use Lake Formation permissions: the database ${database} the stack creates would refuse the stack's IAM-only roles`,
          { ...more, fix: IAM_FIX_DEFAULTS },
        );
      }
      return check(
        'aws.lake-formation',
        'ok',
        `database ${database} not created yet; new databases and tables use IAM access control`,
        more,
      );
    }
    if (!(await iamAllowedOn(clients, { Database: { Name: database } }, signal))) {
      return check(
        'aws.lake-formation',
        'fail',
        `database ${database} is governed by Lake Formation (IAMAllowedPrincipals holds no ALL on it)`,
        {
          ...more,
          fix: grantFix({ Database: { Name: database } }),
        },
      );
    }
    const lfTables: string[] = [];
    for (const name of await tableNames(clients, database, signal)) {
      if (!(await iamAllowedOn(clients, { Table: { DatabaseName: database, Name: name } }, signal)))
        lfTables.push(name);
    }
    if (lfTables.length > 0) {
      return check(
        'aws.lake-formation',
        'fail',
        `tables ${lfTables.join(', ')} of ${database} are governed by Lake Formation (IAMAllowedPrincipals holds no ALL on them)`,
        {
          ...more,
          fix: grantFix(
            { Table: { DatabaseName: database, Name: lfTables[0] as string } },
            lfTables.length > 1 ? ', and the same for each other table' : '',
          ),
        },
      );
    }
    if (!iamOnly(existing.Database.CreateTableDefaultPermissions)) {
      return check(
        'aws.lake-formation',
        'fail',
        `tables created in ${database} from now on would be governed by Lake Formation (its default permissions for new tables are not IAM only)`,
        {
          ...more,
          fix: `aws glue update-database --name ${database} with CreateTableDefaultPermissions [{Principal: {DataLakePrincipalIdentifier: IAM_ALLOWED_PRINCIPALS}, Permissions: [ALL]}] in its DatabaseInput`,
        },
      );
    }
    return check(
      'aws.lake-formation',
      'ok',
      `database ${database} and its tables use IAM access control`,
      more,
    );
  } catch (error) {
    // ListPermissions shows a non-administrator only part of the grants: say it cannot judge.
    return check(
      'aws.lake-formation',
      isAccessDenied(error) ? 'warn' : 'fail',
      `cannot read the Lake Formation mode of ${database}: ${awsErrorText(error)}`,
      {
        ...more,
        fix: isAccessDenied(error)
          ? 'run doctor as a data lake administrator (lakeformation:GetDataLakeSettings, lakeformation:ListPermissions, glue:GetDatabase, glue:GetTables), or check in the Lake Formation console that IAMAllowedPrincipals holds Super on the database and its tables'
          : 'run doctor --check again',
      },
    );
  }
}
