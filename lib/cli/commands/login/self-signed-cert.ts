import { execFile } from 'node:child_process';
import { createPrivateKey, generateKeyPairSync, randomBytes, sign, X509Certificate } from 'node:crypto';
import { access, mkdtemp, readFile, rm } from 'node:fs/promises';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * A throw-away certificate for the https loopback redirect of `login`: made on the fly for
 * one host (127.0.0.1, ::1 or localhost), valid for a day, never written anywhere but a
 * temporary directory that is removed at once. The browser warns about it (nobody signed
 * it); the point is only that a registered `https://127.0.0.1:8000/` redirect can be served.
 */
interface SelfSignedCertificate {
  /** PEM certificate and PKCS#8 PEM key, for `https.createServer({ cert, key })`. */
  cert: string;
  key: string;
  /** How it was made. */
  maker: 'openssl' | 'node';
}

export interface SelfSignedOptions {
  /** Default: the `openssl` binary when one is on PATH, else node:crypto. */
  maker?: 'openssl' | 'node';
  /**
   * The environment `openssl` is looked for on (its PATH) and run with: a command's
   * `io.env`. Default this process's, which is what a child inherits when given none.
   */
  env?: Readonly<Record<string, string | undefined>>;
}

/** An EC P-256 certificate for `host`, whose subjectAltName names it. */
export async function createSelfSignedCertificate(
  host: string,
  options: SelfSignedOptions = {},
): Promise<SelfSignedCertificate> {
  // No environment given (a caller outside a command): the process's own, the one a child
  // process inherits by default.
  const env = options.env ?? process.env;
  const maker = options.maker ?? ((await opensslPath(env)) === undefined ? 'node' : 'openssl');
  const made = maker === 'openssl' ? await withOpenssl(host, env) : withNodeCrypto(host);
  // Both ways must give a certificate whose key matches; a broken one fails here, not in the browser.
  if (!new X509Certificate(made.cert).checkPrivateKey(createPrivateKey(made.key))) {
    throw new Error('The self-signed certificate does not match its key');
  }
  return { ...made, maker };
}

async function opensslPath(env: Readonly<Record<string, string | undefined>>): Promise<string | undefined> {
  for (const dir of (env.PATH ?? '').split(':').filter(Boolean)) {
    const candidate = join(dir, 'openssl');
    try {
      await access(candidate);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

function altName(host: string): string {
  return isIP(host) === 0 ? `DNS:${host}` : `IP:${host}`;
}

async function withOpenssl(
  host: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<{ cert: string; key: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'report-export-cert-'));
  try {
    const keyFile = join(dir, 'key.pem');
    const certFile = join(dir, 'cert.pem');
    await promisify(execFile)(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        `/CN=${host}`,
        '-addext',
        `subjectAltName=${altName(host)}`,
        '-keyout',
        keyFile,
        '-out',
        certFile,
      ],
      // Looked up on, and run with, the PATH opensslPath searched.
      { timeout: 15_000, env: { ...env } },
    );
    return { cert: await readFile(certFile, 'utf8'), key: await readFile(keyFile, 'utf8') };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// A minimal DER encoder: just the types an X.509 v3 certificate with one extension needs.

function der(tag: number, body: Buffer): Buffer {
  const n = body.length;
  let length: Buffer;
  if (n < 0x80) length = Buffer.from([n]);
  else if (n < 0x100) length = Buffer.from([0x81, n]);
  else length = Buffer.from([0x82, n >> 8, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, body]);
}

const seq = (...items: Buffer[]) => der(0x30, Buffer.concat(items));
const set = (...items: Buffer[]) => der(0x31, Buffer.concat(items));
const utf8 = (text: string) => der(0x0c, Buffer.from(text, 'utf8'));
const octets = (body: Buffer) => der(0x04, body);
const explicit = (n: number, body: Buffer) => der(0xa0 + n, body);

function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number) as [number, number, ...number[]];
  const bytes = [40 * a + b];
  for (const arc of rest) {
    const chunk = [arc & 0x7f];
    for (let v = arc >> 7; v > 0; v >>= 7) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return der(0x06, Buffer.from(bytes));
}

function positiveInteger(bytes: Buffer): Buffer {
  // A leading 1 bit would make it negative: prefix a zero byte.
  return der(0x02, (bytes[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);
}

function utcTime(date: Date): Buffer {
  const text = date.toISOString().replace(/[-:T]/g, '').slice(2, 14);
  return der(0x17, Buffer.from(`${text}Z`, 'ascii'));
}

function ipBytes(host: string): Buffer {
  if (isIP(host) === 4) return Buffer.from(host.split('.').map(Number));
  // ::1 is the only IPv6 loopback literal a redirect may name.
  const bytes = Buffer.alloc(16);
  bytes[15] = 1;
  return bytes;
}

const ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2';
const COMMON_NAME = '2.5.4.3';
const SUBJECT_ALT_NAME = '2.5.29.17';

function withNodeCrypto(host: string): { cert: string; key: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const name = seq(set(seq(oid(COMMON_NAME), utf8(host))));
  const now = Date.now();
  // [7] iPAddress or [2] dNSName, both implicit.
  const general = isIP(host) === 0 ? der(0x82, Buffer.from(host, 'ascii')) : der(0x87, ipBytes(host));
  const tbs = seq(
    explicit(0, der(0x02, Buffer.from([2]))), // v3
    positiveInteger(randomBytes(16)),
    seq(oid(ECDSA_WITH_SHA256)),
    name,
    seq(utcTime(new Date(now - 60_000)), utcTime(new Date(now + 24 * 3600_000))),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, seq(seq(oid(SUBJECT_ALT_NAME), octets(seq(general))))),
  );
  const signature = sign('sha256', tbs, { key: privateKey, dsaEncoding: 'der' });
  const certificate = seq(
    tbs,
    seq(oid(ECDSA_WITH_SHA256)),
    der(0x03, Buffer.concat([Buffer.from([0]), signature])),
  );
  const body = certificate
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .trimEnd();
  return {
    cert: `-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----\n`,
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
  };
}
