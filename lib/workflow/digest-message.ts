import { FAILING_NIGHTS_THRESHOLD, MAX_STREAK_NIGHTS, type NightDigest } from './digest';

/**
 * The digest as one SNS message: a subject within SNS's limit (ASCII, no line breaks, under
 * 100 characters) and a plain-text body (e-mail is the topic's subscription) within SNS's
 * 256 KiB message size, whatever the number of tenants: each category lists its tenants in id
 * order while its share of the budget lasts, then says "and N more".
 */

/** SNS: a subject "must be less than 100 characters long". */
export const MAX_SUBJECT_CHARS = 99;

/** SNS's largest message is 256 KiB (262,144 bytes); the subject and attributes are kept out of 4 KiB. */
export const MAX_BODY_BYTES = 256 * 1024 - 4 * 1024;

/** A listed line is cut here (a tenant's name and error names are the registry's and the records'). */
const MAX_LINE_CHARS = 500;

export interface DigestMessage {
  subject: string;
  body: string;
}

const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');

function cut(line: string, max: number): string {
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/** "5 h 20 min", "3 d 2 h": a lag in minutes as a person reads it. */
export function lagText(minutes: number | null): string {
  if (minutes === null) return 'no data';
  const d = Math.floor(minutes / 1440);
  const h = Math.floor((minutes % 1440) / 60);
  const m = minutes % 60;
  if (d > 0) return `${d} d ${h} h`;
  return h > 0 ? `${h} h ${m} min` : `${m} min`;
}

const label = (t: { tenant: string | null; name: string }) =>
  t.tenant === null ? t.name : `${t.tenant} (${t.name})`;

/** Each category's heading and lines, in the body's order. */
function sections(d: NightDigest): { heading: string; lines: string[] }[] {
  return [
    {
      heading: `Failed (${d.failed.length})`,
      lines: d.failed.map((f) => {
        const streak =
          f.nightsRunning >= FAILING_NIGHTS_THRESHOLD
            ? `; failing ${f.nightsRunning}${f.nightsRunning >= MAX_STREAK_NIGHTS ? '+' : ''} nights running`
            : '';
        const runs = f.executions === 1 ? '' : `, ${f.executions} executions`;
        return `- ${label(f)}: ${f.errors.join(', ') || 'failed'}${runs}${streak}`;
      }),
    },
    {
      heading: `Held (${d.held.length})`,
      lines: d.held.map(
        (h) =>
          `- ${label(h)}: ${h.days.length} day(s): ${h.days.map((x) => `${x.dt} ${x.reportName}`).join(', ')}`,
      ),
    },
    {
      heading: `Stale (${d.stale.length})`,
      lines: d.stale.map(
        (s) => `- ${label(s)}: ${s.verdict}, ${s.reportName} ${lagText(s.lagMinutes)} behind`,
      ),
    },
    { heading: `Recovered (${d.recovered.length})`, lines: d.recovered.map((r) => `- ${label(r)}`) },
  ];
}

/**
 * The subject: `<deployment>: <n> failed, <n> held, <n> stale, <n> recovered (<night end>)`,
 * the deployment's name cut so the whole fits {@link MAX_SUBJECT_CHARS}, non-ASCII replaced.
 */
export function digestSubject(d: NightDigest, deployment: string): string {
  const counts = `${d.failed.length} failed, ${d.held.length} held, ${d.stale.length} stale, ${d.recovered.length} recovered (${d.night.to.slice(0, 16)}Z)`;
  const room = MAX_SUBJECT_CHARS - counts.length - 2;
  const name = cut(deployment.replace(/[^\x20-\x7e]/g, '?'), Math.max(1, room)).replace('…', '.');
  return `${name}: ${counts}`.slice(0, MAX_SUBJECT_CHARS);
}

/** The message of a digest (`deployment`: the stack's name, for the subject and first line). */
export function digestMessage(
  d: NightDigest,
  deployment: string,
  maxBodyBytes = MAX_BODY_BYTES,
): DigestMessage {
  const head = [
    `report-export ${deployment}: the night ${d.night.from} .. ${d.night.to}`,
    `${d.tenants} tenant(s)${d.disabled > 0 ? `, ${d.disabled} disabled` : ''}: ${d.failed.length} failed, ${d.held.length} held, ${d.stale.length} stale, ${d.recovered.length} recovered` +
      (d.unattributedFailures > 0
        ? `; ${d.unattributedFailures} failed execution(s) without a registered tenant (runs/dt=...)`
        : ''),
    '',
  ].map((l) => cut(l, MAX_LINE_CHARS));
  const parts = sections(d);
  let budget = maxBodyBytes - utf8(head.join('\n')) - 1;
  const out = [...head];
  for (const [i, s] of parts.entries()) {
    const share = Math.floor(budget / (parts.length - i));
    const more = (n: number) => `  and ${n} more`;
    const section = [s.heading];
    // Room for the heading, the blank line after and the longest "and N more".
    let used = utf8(s.heading) + 2 + utf8(more(s.lines.length)) + 1;
    let listed = 0;
    for (const line of s.lines) {
      const l = cut(line, MAX_LINE_CHARS);
      if (used + utf8(l) + 1 > share) break;
      section.push(l);
      used += utf8(l) + 1;
      listed++;
    }
    if (listed < s.lines.length) section.push(more(s.lines.length - listed));
    section.push('');
    out.push(...section);
    budget -= utf8(section.join('\n')) + 1;
  }
  return { subject: digestSubject(d, deployment), body: out.join('\n').trimEnd() };
}
