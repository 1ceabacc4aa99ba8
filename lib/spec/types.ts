/**
 * Wire types of the reporting and contact-directory service, as written in
 * shared/spec/service-spec.md and service-notes.md. This is the only code the client
 * (lib/api) and the local service (lib/simulator) share: two independent sides of one
 * contract. Types describe what the spec shows; lenient parsing of what the notes say
 * varies (page_size as string, counts as strings) is the client's job.
 */

export const API_VERSION_SEGMENT = 'v1.0';

/** OAuth scope the spec requires for the authorization request. */
export const OAUTH_SCOPE = 'openid offline_access onboarding';

/** Common response envelope. `data` is an object or an array depending on the endpoint. */
export interface Envelope<T> {
  data: T;
  status: 'success' | string;
  /** ISO 8601 UTC date-time with 7 fractional digits. */
  timestamp: string;
  page_size?: number | string;
  page_index?: number | string;
}

/** 400 / 404 error body. 401 has no body. */
export interface ErrorBody {
  error: number;
  message: string;
  status: 'error';
  timestamp: string;
}

export interface Workspace {
  id: string;
  name: string;
  default: boolean;
}

export interface ReportListEntry {
  id: string;
  name: string;
}

export const PRESET_NAMES = [
  'Today',
  'Yesterday',
  'ThisWeek',
  'LastWeek',
  'ThisMonth',
  'LastMonth',
  'ThisQuarter',
  'LastQuarter',
  'ThisYear',
  'LastYear',
] as const;
export type PresetName = (typeof PRESET_NAMES)[number];

export interface PresetFilterObject {
  units: number;
  offset: number;
  length: number;
  roundingMode: number;
  daysOfWeek: number;
}

/** Date filter as sent: a preset or a fixed range (ISO 8601 with offset). */
export type DateFilterInput = { presetName: string } | { start: string; end: string };

/** Date filter as returned. */
export interface DateFilter {
  presetName?: string;
  start?: string;
  end?: string;
  presetFilterObject?: PresetFilterObject;
  daysOfWeek?: number;
}

export interface AdditionalCondition {
  fieldName: string;
  operator: string;
  values: string[];
}

/** Body of endpoint 2 (POST .../reports/{REPORT_ID}/requests). */
export interface ReportRunBody {
  reportId: string;
  filterId?: string;
  dateFilter: DateFilterInput;
  additionalConditions?: AdditionalCondition[];
}

/** data of endpoint 2's response. */
export interface ReportRequest {
  requestId: string;
  locale: string;
  reportId: string;
  referenceDate: string;
  dateFilter: DateFilter;
  /** Preset filter: the resolved period. */
  startTime?: string;
  endTime?: string;
  /** Fixed range: echoed. */
  start?: string;
  end?: string;
}

/** data of endpoint 3's response. */
export interface ReportRequestStatus {
  dateCreated: string;
  tenantId: string;
  requestId: string;
  reportId: string;
  /** `Complete` when done; other values are open (see service-notes.md). */
  status: string;
  statusMessage: string;
  reportTemplateName: string;
}

interface FilterCondition {
  fieldName: string;
  operator: string;
  values: string[];
}

interface SortField {
  fieldName: string;
  direction: number;
}

export interface DisplayField {
  fieldName: string;
  mandatory: boolean;
}

interface RequestMetadata {
  reportName: string | null;
  dateFilter: DateFilter;
  referenceDate: string;
  timeZoneReferenceDate: string;
  filterId: string | null;
  additionalFilters: unknown[];
  workspaceFilterId: string | null;
  timezoneDateFrom: string;
  timezoneDateTo: string;
  timeZoneDateCreated: string;
  timeZoneAbbreviation: string;
}

/** The `request` member of the report result: the request as run. */
export interface ReportRunDefinition {
  requestId: string;
  dateCreated: string;
  tenantId: string;
  reportId: string;
  reportTemplateName: string;
  filterConditions: FilterCondition[];
  sortFields: SortField[];
  displayFields: DisplayField[];
  childDisplayFields: unknown[];
  ignoreDisplayFields: boolean;
  metadata: RequestMetadata;
  source: string;
  pageSize: number;
  batchSize: number;
  rowLimit: number;
  priorityLevel: number;
  callRatePeriod: number;
  ignoreAbandonedCalls: boolean;
  ignoreShortAnsweredCalls: boolean;
  accountCodeLabels: Record<string, unknown>;
  ringDurationThresholds: number[];
  incomingEstimatedRevenue: number;
  incomingCallsPerSale: number;
  outgoingEstimatedRevenue: number;
  outgoingCallsPerSale: number;
  durationGroupPeriodInSeconds: number;
  timeZoneId: string;
  countryCode: string;
  locale: string;
  totalTrunks: number;
  maxRows: number;
}

/** One call record. Members are omitted when not applicable to the row. */
export interface ResultRow {
  connId?: string;
  /** Date-time without offset, local to the report's timeZoneId. */
  start?: string;
  userName?: string;
  userNum?: string;
  cli?: string;
  cliName?: string;
  hgNum?: string;
  hgName?: string;
  callType?: number;
  callDir?: number;
  ans?: number;
  ref?: number;
  lost?: number;
  ring?: number;
  duration?: number;
  calledUserNum?: string;
  calledUserName?: string;
  callUserName?: string;
  callUserNum?: string;
  docId?: string;
}

/** The display fields the spec's example names, in the order it lists them (`request.displayFields`). */
export const SPEC_DISPLAY_FIELD_NAMES = [
  'connId',
  'start',
  'userName',
  'userNum',
  'cli',
  'cliName',
  'hgNum',
  'callType',
  'callDir',
  'ans',
  'ref',
  'lost',
  'ring',
  'duration',
  'calledUserNum',
  'calledUserName',
  'callUserName',
  'callUserNum',
  'hgName',
] as const satisfies readonly (keyof ResultRow)[];

/** Every member a result row may carry, in the spec's order (its table of row members). */
export const RESULT_ROW_FIELDS = [
  'connId',
  'start',
  'userName',
  'userNum',
  'cli',
  'cliName',
  'hgNum',
  'hgName',
  'callType',
  'callDir',
  'ans',
  'ref',
  'lost',
  'ring',
  'duration',
  'calledUserNum',
  'calledUserName',
  'callUserName',
  'callUserNum',
  'docId',
] as const satisfies readonly (keyof ResultRow)[];

export interface SummaryEntry {
  ans: number;
  ref: number;
  lost: number;
  ring: number;
  duration: number;
}

/** Response of endpoint 4 (not wrapped in the envelope). */
export interface ReportResult {
  requestId: string;
  tenantId: string;
  request: ReportRunDefinition;
  effort: number;
  queryDuration: number;
  totalDuration: number | string;
  queryCount: number;
  rowLimitExceeded: boolean;
  totalCount: number | string;
  /** Rows as objects, or (per the notes) arrays ordered like request.displayFields. */
  data: (ResultRow | unknown[])[];
  summary: SummaryEntry[];
  status: number;
  statusMessage: string;
  rowLimit: number;
}

/** Field names a directory item may carry. */
export const DIRECTORY_FIELD_NAMES = [
  'title',
  'fullName',
  'companyName',
  'jobTitle',
  'phone1',
  'phone2',
  'phone3',
  'phone4',
  'email',
  'crmId',
  'field1',
  'field2',
  'field3',
  'field4',
  'field5',
  'field6',
  'field7',
  'field8',
  'field9',
  'field10',
  'avatar',
] as const;
export type DirectoryFieldName = (typeof DIRECTORY_FIELD_NAMES)[number];

export const PHONE_FIELD_NAMES = ['phone1', 'phone2', 'phone3', 'phone4'] as const;

export interface Directory {
  id: string;
  name: string;
  description: string;
  fields: string[];
}

export type DirectoryItemFields = Partial<Record<DirectoryFieldName, string>>;

export interface DirectoryItem {
  id: string;
  fields: DirectoryItemFields;
}

/** Token endpoint success body. */
export interface TokenResponse {
  access_token: string;
  refresh_token?: string;
  token_type: 'bearer' | string;
  expires?: number;
  expires_in?: number;
  scope?: string;
}

/** RFC 6749 5.2 error body of the token endpoint. */
export interface OAuthErrorBody {
  error: string;
  error_description?: string;
}
