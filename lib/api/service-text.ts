/**
 * Longest service-supplied text (an error body's `message`, an OAuth `error_description`, a
 * report's `statusMessage`) kept on an error, in UTF-16 code units. Errors are logged and
 * passed between workflow states (256 KB cap), so a server must not be able to make them big.
 */
export const MAX_SERVICE_TEXT_CHARS = 1024;

/** `text` cut to {@link MAX_SERVICE_TEXT_CHARS}, ending in `…` when cut; undefined stays undefined. */
export function truncateServiceText(text: string, max?: number): string;
export function truncateServiceText(text: string | undefined, max?: number): string | undefined;
export function truncateServiceText(
  text: string | undefined,
  max = MAX_SERVICE_TEXT_CHARS,
): string | undefined {
  if (text === undefined || text.length <= max) return text;
  let end = max - 1;
  // Never leave half of a surrogate pair at the cut.
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}
