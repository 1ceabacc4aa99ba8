import { type DisplayField, SPEC_DISPLAY_FIELD_NAMES } from '../../spec';
import type { RowLayout } from './report-templates';

/** Members of a call row in the order the spec lists its display fields, plus docId which rows also carry. */
export const CALL_FIELD_NAMES = [...SPEC_DISPLAY_FIELD_NAMES, 'docId'] as const;

/**
 * The simulator's own members of a `call-details` row (the spec's row does not know them),
 * written after docId in every row:
 * - accountCode: string (digits only for some, e.g. `0042`: still a string);
 * - queueSeconds: integer, seconds in the hunt group's queue (0 when the call reached none);
 * - cost: number, the charge in pounds with at most two decimals (`12.5`, `0.07`), 0 when free;
 * - recorded: boolean;
 * - trunk: object `{id, name}` (both strings), the line the call used.
 */
export const CALL_DETAIL_FIELD_NAMES = ['accountCode', 'queueSeconds', 'cost', 'recorded', 'trunk'] as const;

/**
 * Members of a `user-totals` row: the user, `calls` (integer, unknown to the spec: the calls
 * summed), and the sums of ans, ref, lost (integers), ring and duration (seconds).
 */
export const USER_TOTAL_FIELD_NAMES = [
  'userName',
  'userNum',
  'calls',
  'ans',
  'ref',
  'lost',
  'ring',
  'duration',
] as const;

function displayFields(names: readonly string[], mandatory: readonly string[]): DisplayField[] {
  return names.map((fieldName) => ({ fieldName, mandatory: mandatory.includes(fieldName) }));
}

/** Columns of the spec's call rows. */
export const DISPLAY_FIELDS: DisplayField[] = displayFields(CALL_FIELD_NAMES, ['connId', 'start']);

const LAYOUT_FIELDS: Record<RowLayout, DisplayField[]> = {
  calls: DISPLAY_FIELDS,
  'call-details': displayFields([...CALL_FIELD_NAMES, ...CALL_DETAIL_FIELD_NAMES], ['connId', 'start']),
  'user-totals': displayFields(USER_TOTAL_FIELD_NAMES, ['userNum']),
};

/** `request.displayFields` of a result with this layout: its rows' members, in order. */
export function displayFieldsOf(layout: RowLayout): DisplayField[] {
  return LAYOUT_FIELDS[layout];
}

/** Names of the members of a row of this layout, in the order of its displayFields. */
export function fieldNamesOf(layout: RowLayout): string[] {
  return LAYOUT_FIELDS[layout].map((f) => f.fieldName);
}
