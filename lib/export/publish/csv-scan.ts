import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
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
  const text = gzip ? gunzipped(file, hash) : chunksOf(file, hash);
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
      // Searched only up to the next quote: searching to the chunk's end from every quote
      // made a field of quotes quadratic.
      const segment = chunk.subarray(0, end);
      for (let lf = segment.indexOf(LF, i); lf >= 0; lf = segment.indexOf(LF, lf + 1)) lines++;
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

const READ_BYTES = 256 * 1024;

/**
 * The file's bytes through one reused buffer (each chunk is valid until the next one is
 * asked for), hashed on the way: reading every part back allocates nothing per chunk.
 */
async function* chunksOf(file: string, hash: Hash): AsyncGenerator<Buffer> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.allocUnsafeSlow(READ_BYTES);
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) return;
      const chunk = buffer.subarray(0, bytesRead);
      hash.update(chunk);
      yield chunk;
    }
  } finally {
    await handle.close();
  }
}

/** The decompressed bytes of a gzip file, the stored bytes hashed on the way. */
function gunzipped(file: string, hash: Hash): AsyncIterable<Buffer> {
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  // Errors of any stage destroy the last one, which rejects the caller's loop.
  return pipeline(createReadStream(file), tap, createGunzip(), () => undefined);
}
