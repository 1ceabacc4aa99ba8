/** The dialect a `calls_with_contacts` view is written in. */
export type ViewDialect = 'duckdb' | 'athena';

/** What the view's SQL depends on. */
export interface CallsWithContactsOptions {
  dialect: ViewDialect;
  /** A multi-tenant lake's tables (a `tenant` column in every table, joined on). */
  tenanted: boolean;
  /** The schema (Glue database) the tables are in; none: unqualified names. */
  database?: string;
}

/**
 * The `CREATE VIEW calls_with_contacts` statement: every call once, with the contact whose
 * version was valid at its start and whose phone matches its external number.
 */
export function callsWithContactsSql(options: CallsWithContactsOptions): string {
  throw new Error(`calls_with_contacts is not written yet (${options.dialect})`);
}
