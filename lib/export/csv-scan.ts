import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { pipeline, Transform } from 'node:stream';
import { createGunzip } from 'node:zlib';

const QUOTE = 0x22;
const LF = 0x0a;

/** What an independent read of a CSV file finds. */
export interface CsvScan {
  /** Records after the header line. */
  records: number;
  /** Whether the file starts with exactly the expected header line (CRLF included). */
  headerMatches: boolean;
  /** Whether the file ends with a complete record (CRLF outside quotes). */
  complete: boolean;
  /** sha256 of the file's bytes as stored (compressed when gzip). */
  sha256: string;
}

/**
 * Counts the records of an RFC 4180 file by reading it back, independently of the
 * encoder that wrote it: a record ends at an LF outside quotes (a doubled quote inside a
 * quoted field toggles twice, so it needs no special case). Gzip files are decompressed
 * on the way. Linear in the file's size; memory is one read buffer.
 */
export async function scanCsvFile(file: string, header: string, gzip: boolean): Promise<CsvScan> {
  const hash = createHash('sha256');
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  const raw = createReadStream(file, { highWaterMark: 1024 * 1024 });
  // Errors of any stage destroy the last one, which rejects the loop below.
  const noop = () => undefined;
  const text: AsyncIterable<Buffer> = gzip
    ? pipeline(raw, tap, createGunzip(), noop)
    : pipeline(raw, tap, noop);
  const expectedHeader = Buffer.from(header, 'utf8');
  let headerBytes: Buffer = Buffer.alloc(0);
  let lines = 0;
  let inQuotes = false;
  let last = -1;
  for await (const chunk of text) {
    if (chunk.length === 0) continue;
    if (lines === 0 && headerBytes.length < expectedHeader.length) {
      headerBytes = Buffer.concat([headerBytes, chunk.subarray(0, expectedHeader.length)]);
    }
    const n = chunk.length;
    let i = 0;
    while (i < n) {
      const quote = chunk.indexOf(QUOTE, i);
      if (inQuotes) {
        if (quote < 0) break;
        inQuotes = false;
        i = quote + 1;
        continue;
      }
      const end = quote < 0 ? n : quote;
      for (let lf = chunk.indexOf(LF, i); lf >= 0 && lf < end; lf = chunk.indexOf(LF, lf + 1)) lines++;
      if (quote < 0) break;
      inQuotes = true;
      i = quote + 1;
    }
    last = chunk[n - 1] as number;
  }
  const headerMatches =
    headerBytes.length >= expectedHeader.length &&
    headerBytes.subarray(0, expectedHeader.length).equals(expectedHeader);
  return {
    records: Math.max(0, lines - 1),
    headerMatches,
    complete: !inQuotes && last === LF,
    sha256: hash.digest('hex'),
  };
}
