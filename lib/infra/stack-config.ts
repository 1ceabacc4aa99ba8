import { z } from 'zod';
import { isIanaZone } from '../workflow/settings';
import type { ReportExportConfig } from './report-export-stack';

const CONFIG_SCHEMA = z.strictObject({
  workspaceId: z.string().min(1),
  reports: z.array(z.strictObject({ id: z.string().min(1), name: z.string().min(1) })).min(1),
  timeZone: z.string().refine(isIanaZone, 'is not an IANA zone'),
  lookBackDays: z.number().int().min(0).max(90).optional(),
  maxWindowDays: z.number().int().min(1).max(366).optional(),
  mapConcurrency: z.number().int().min(1).max(40).optional(),
  prefix: z
    .string()
    .regex(
      /^[A-Za-z0-9._=-]+(\/[A-Za-z0-9._=-]+)*$/,
      'must be key segments without leading or trailing slash',
    )
    .optional(),
});

/** Reads the `reportExport` context object; errors name the setting and its value. */
export function configFromContext(value: unknown): ReportExportConfig {
  const parsed = CONFIG_SCHEMA.safeParse(value);
  if (parsed.success) return parsed.data as ReportExportConfig;
  const problems = parsed.error.issues.map((i) => {
    const at = i.path.join('.');
    let v: unknown = value;
    for (const k of i.path) v = (v as Record<PropertyKey, unknown> | undefined)?.[k];
    return `${at || 'reportExport'} ${typeof v === 'string' ? `"${v}" ` : ''}${i.message}`;
  });
  throw new Error(`Invalid reportExport configuration (cdk.json context): ${problems.join('; ')}`);
}
