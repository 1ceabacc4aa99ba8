/** The dialect a `calls_with_contacts` view is written in. */
export type ViewDialect = 'duckdb' | 'athena';

/** What the view's SQL depends on. */
export interface CallsWithContactsOptions {
  dialect: ViewDialect;
  /** A multi-tenant lake's tables (a `tenant` column in every table, joined on). */
  tenanted: boolean;
  /** The schema (Glue database) the tables are in; none: unqualified names. */
  database?: string;
  /**
   * Item fields the deployment leaves out of the lake (service names: `fullName`,
   * `companyName`, `crmId`): their `contact_` columns read as NULL instead of failing to bind.
   */
  omitFields?: readonly string[];
}

/** The view's name, in `query` and in Athena. */
export const CALLS_WITH_CONTACTS_VIEW = 'calls_with_contacts';

/** How a call's external number met a contact: see the view's `match_quality`. */
export const MATCH_QUALITIES = {
  /** `cli` was written with `+` (E.164 already). */
  e164: 'e164',
  /** `cli` was national, with a trunk prefix, or dialled with the international prefix. */
  normalised: 'normalised',
  /** An external number no contact had at the call's start (or none readable). */
  none: 'none',
  /** An internal call (`cli` is the user's own extension): no external party. */
  internal: 'internal',
} as const;

/** The contact's columns the view carries, `contact_` prefixed, with the item field each needs. */
const CONTACT_COLUMNS: readonly { column: string; field?: string }[] = [
  { column: 'directory_id' },
  { column: 'directory_name' },
  { column: 'item_id' },
  { column: 'crm_id', field: 'crmId' },
  { column: 'full_name', field: 'fullName' },
  { column: 'company_name', field: 'companyName' },
  { column: 'valid_from' },
];

const quoteName = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/**
 * The `CREATE VIEW calls_with_contacts` statement: every call once, with the contact whose
 * version was valid at its start and whose phone matches its external number.
 *
 * - The external number is `cli` (the external party of an inbound and of an outbound
 *   external call); a call whose `cli` is its user's own number (`user_num`) is internal
 *   and matches nothing.
 * - It is read to E.164 with the tenant's dialling facts (contact_phones' `calling_code`,
 *   `idd_prefix`, `trunk_prefix`, one set per tenant): no digits, NULL; `+`, kept; the IDD
 *   prefix, dropped; the trunk prefix, replaced by the calling code; else the calling code
 *   put before it. `external_number_e164` shows the result.
 * - A contact matches when one of its version's phones is that number and the version was
 *   valid at `start_utc` (valid_from <= start_utc < coalesce(valid_to, +inf)) and is not a
 *   deletion. The history begins at the first sync, after most calls already exported: an
 *   item's first version also covers the time before it (the initial row of a slowly
 *   changing dimension, as Kimball's initial load dates it), and such a match says so in
 *   `matched_before_history`. Several contacts: the first by (directory_id, item_id) is taken, the others
 *   counted in `other_candidates`; one contact with the number in two fields counts once
 *   (`contact_phone_field` the first field holding it).
 * - Every call stays exactly once: candidates are ranked per (tenant, number, start) and
 *   the first is joined back on that key.
 */
export function callsWithContactsSql(options: CallsWithContactsOptions): string {
  const { dialect, tenanted } = options;
  const table = (name: string) =>
    options.database === undefined ? name : `${quoteName(options.database)}.${quoteName(name)}`;
  const omitted = new Set(options.omitFields ?? []);
  // DuckDB's regexp_replace replaces the first match unless 'g'; Trino's replaces every one.
  const digits = (text: string) =>
    dialect === 'duckdb' ? `regexp_replace(${text}, '[^0-9]', '', 'g')` : `regexp_replace(${text}, '[^0-9]')`;
  const t = (alias: string) => (tenanted ? [`${alias}.tenant`] : []);
  const on = (a: string, b: string) => (tenanted ? [`${a}.tenant = ${b}.tenant`] : []);
  const key = [...t('k'), 'k.external_number_e164', 'k.start_utc'];
  const cli = 'c.cli';
  const internal = `${cli} = c.user_num`;
  const external = `CASE
      WHEN ${cli} IS NULL OR ${internal} OR ${digits(cli)} = '' THEN NULL
      WHEN starts_with(trim(${cli}), '+') THEN '+' || ${digits(cli)}
      WHEN d.idd_prefix IS NOT NULL AND d.idd_prefix <> '' AND starts_with(${digits(cli)}, d.idd_prefix)
        THEN '+' || substr(${digits(cli)}, length(d.idd_prefix) + 1)
      WHEN d.trunk_prefix IS NOT NULL AND d.trunk_prefix <> '' AND starts_with(${digits(cli)}, d.trunk_prefix)
        THEN '+' || d.calling_code || substr(${digits(cli)}, length(d.trunk_prefix) + 1)
      ELSE '+' || d.calling_code || ${digits(cli)}
    END`;
  const facts = [
    ...(tenanted ? ['tenant'] : []),
    'dial_country',
    'calling_code',
    'idd_prefix',
    'trunk_prefix',
  ];
  const byTenant = tenanted ? 'PARTITION BY tenant ' : '';
  const create = dialect === 'duckdb' ? 'CREATE VIEW' : 'CREATE OR REPLACE VIEW';
  const groupKey = [...key, 'v.directory_id', 'v.item_id', 'v.valid_from'];
  const contactSelect = CONTACT_COLUMNS.filter(
    (c) => !['directory_id', 'item_id', 'valid_from'].includes(c.column),
  );
  const ranked = [...(tenanted ? ['tenant'] : []), 'external_number_e164', 'start_utc'];
  return `${create} ${table(CALLS_WITH_CONTACTS_VIEW)} AS
WITH dialling AS (
  SELECT ${facts.join(', ')} FROM (
    SELECT ${facts.join(', ')},
      row_number() OVER (${byTenant}ORDER BY dial_country, calling_code, idd_prefix, trunk_prefix) AS pick
    FROM (SELECT DISTINCT ${facts.join(', ')} FROM ${table('contact_phones')}) AS distinct_facts
  ) AS ranked_facts
  WHERE pick = 1
),
versions AS (
  SELECT *, valid_from = min(valid_from) OVER (PARTITION BY ${[...(tenanted ? ['tenant'] : []), 'directory_id', 'item_id'].join(', ')}) AS first_version
  FROM ${table('contacts')}
),
numbered AS (
  SELECT c.*, ${external} AS external_number_e164
  FROM ${table('calls')} AS c
  LEFT JOIN dialling AS d ON ${tenanted ? 'd.tenant = c.tenant' : 'TRUE'}
),
call_keys AS (
  SELECT DISTINCT ${[...(tenanted ? ['tenant'] : []), 'external_number_e164', 'start_utc'].join(', ')}
  FROM numbered
  WHERE external_number_e164 IS NOT NULL AND start_utc IS NOT NULL
),
candidates AS (
  SELECT ${groupKey.join(', ')},
    ${contactSelect.map((c) => `${c.field !== undefined && omitted.has(c.field) ? 'CAST(NULL AS VARCHAR)' : `min(v.${c.column})`} AS ${c.column}`).join(',\n    ')},
    min(p.phone_field) AS phone_field
  FROM call_keys AS k
  JOIN ${table('contact_phones')} AS p ON ${[...on('p', 'k'), 'p.phone_e164 = k.external_number_e164'].join(' AND ')}
  JOIN versions AS v ON ${[...on('v', 'p'), 'v.directory_id = p.directory_id', 'v.item_id = p.item_id', 'v.valid_from = p.valid_from'].join(' AND ')}
  WHERE (v.valid_from <= k.start_utc OR v.first_version) AND (v.valid_to IS NULL OR k.start_utc < v.valid_to) AND NOT v.is_deleted
  GROUP BY ${groupKey.join(', ')}
),
chosen AS (
  SELECT * FROM (
    SELECT candidates.*,
      row_number() OVER (PARTITION BY ${ranked.join(', ')} ORDER BY directory_id, item_id) AS pick,
      count(*) OVER (PARTITION BY ${ranked.join(', ')}) - 1 AS other_candidates
    FROM candidates
  ) AS ranked_candidates
  WHERE pick = 1
)
SELECT n.*,
  CASE
    WHEN r.item_id IS NOT NULL AND starts_with(trim(n.cli), '+') THEN '${MATCH_QUALITIES.e164}'
    WHEN r.item_id IS NOT NULL THEN '${MATCH_QUALITIES.normalised}'
    WHEN n.cli = n.user_num THEN '${MATCH_QUALITIES.internal}'
    ELSE '${MATCH_QUALITIES.none}'
  END AS match_quality,
  coalesce(r.other_candidates, 0) AS other_candidates,
  ${CONTACT_COLUMNS.map((c) => `r.${c.column} AS contact_${c.column}`).join(',\n  ')},
  r.phone_field AS contact_phone_field,
  coalesce(r.valid_from > n.start_utc, false) AS matched_before_history
FROM numbered AS n
LEFT JOIN chosen AS r ON ${[...(tenanted ? ['r.tenant = n.tenant'] : []), 'r.external_number_e164 = n.external_number_e164', 'r.start_utc = n.start_utc'].join(' AND ')}`;
}
