// Counting one byte value in a run of the body (the colons the duplicate-member check needs)
// with WebAssembly SIMD: 16 bytes per compare, where a search per occurrence (indexOf, a
// memchr per colon) cost about 15 % of JSON.parse's time on call-list rows. The module is
// written here as bytes, so there is no build step; a runtime without WebAssembly SIMD
// counts in plain JS (the same answer, at the old cost).
//
// The module, as WAT (one page of memory; `count` reads `len` bytes from offset 0):
//
//   (module
//     (memory (export "memory") 1)
//     (func (export "count") (param $len i32) (param $byte i32) (result i32)
//       (local $i i32) (local $n i32) (local $end i32) (local $needle v128)
//       (local.set $needle (i8x16.splat (local.get $byte)))
//       (local.set $end (i32.and (local.get $len) (i32.const -16)))
//       (block $done (loop $vectors          ;; 16 bytes at a time: compare, bitmask, popcnt
//         (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
//         (local.set $n (i32.add (local.get $n) (i32.popcnt (i8x16.bitmask
//           (i8x16.eq (v128.load (local.get $i)) (local.get $needle))))))
//         (local.set $i (i32.add (local.get $i) (i32.const 16)))
//         (br $vectors)))
//       (block $done (loop $bytes            ;; the last len % 16 bytes one by one
//         (br_if $done (i32.ge_u (local.get $i) (local.get $len)))
//         (local.set $n (i32.add (local.get $n)
//           (i32.eq (i32.load8_u (local.get $i)) (local.get $byte))))
//         (local.set $i (i32.add (local.get $i) (i32.const 1)))
//         (br $bytes)))
//       (local.get $n)))

const I32 = 0x7f;
const V128 = 0x7b;
const SIMD = 0xfd;
const [GET, SET] = [0x20, 0x21];
const [BLOCK, LOOP, BR, BR_IF, END, VOID] = [0x02, 0x03, 0x0c, 0x0d, 0x0b, 0x40];
const [I32_CONST, I32_GE_U, I32_EQ, I32_ADD, I32_AND, I32_POPCNT] = [0x41, 0x4f, 0x46, 0x6a, 0x71, 0x69];
const I32_LOAD8_U = 0x2d;
const [V128_LOAD, I8X16_SPLAT, I8X16_EQ, I8X16_BITMASK] = [0x00, 0x0f, 0x23, 0x64];
const [LEN, BYTE, I, N, LIMIT, NEEDLE] = [0, 1, 2, 3, 4, 5];

const BODY = [
  ...[2, 3, I32, 1, V128], // locals: $i $n $end (i32), $needle (v128)
  ...[GET, BYTE, SIMD, I8X16_SPLAT, SET, NEEDLE],
  ...[GET, LEN, I32_CONST, 0x70 /* -16 */, I32_AND, SET, LIMIT],
  ...[BLOCK, VOID, LOOP, VOID],
  ...[GET, I, GET, LIMIT, I32_GE_U, BR_IF, 1],
  ...[GET, N, GET, I, SIMD, V128_LOAD, 0, 0, GET, NEEDLE, SIMD, I8X16_EQ, SIMD, I8X16_BITMASK],
  ...[I32_POPCNT, I32_ADD, SET, N],
  ...[GET, I, I32_CONST, 16, I32_ADD, SET, I, BR, 0, END, END],
  ...[BLOCK, VOID, LOOP, VOID],
  ...[GET, I, GET, LEN, I32_GE_U, BR_IF, 1],
  ...[GET, N, GET, I, I32_LOAD8_U, 0, 0, GET, BYTE, I32_EQ, I32_ADD, SET, N],
  ...[GET, I, I32_CONST, 1, I32_ADD, SET, I, BR, 0, END, END],
  ...[GET, N, END],
];

/** A section: its id, then its content's length (each section here is under 128 bytes). */
function section(id: number, content: number[]): number[] {
  return [id, content.length, ...content];
}

const ascii = (s: string) => [s.length, ...Buffer.from(s, 'ascii')];

const MODULE = Uint8Array.from([
  ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00], // \0asm, version 1
  ...section(1, [1, 0x60, 2, I32, I32, 1, I32]), // type 0: (i32, i32) -> i32
  ...section(3, [1, 0]), // function 0 has type 0
  ...section(5, [1, 0x00, 1]), // one memory of at least one page
  ...section(7, [2, ...ascii('memory'), 0x02, 0, ...ascii('count'), 0x00, 0]),
  ...section(10, [1, BODY.length, ...BODY]),
]);

/** Bytes the module counts per call: its one page. */
const PAGE_BYTES = 64 * 1024;

interface Counter {
  memory: Uint8Array;
  count: (len: number, byte: number) => number;
}

/** What this module needs of WebAssembly (the project's tsconfig has no DOM types). */
interface WasmRuntime {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: Record<string, unknown> };
}

function instantiate(wasm: WasmRuntime | undefined): Counter | undefined {
  try {
    // validate() is false where SIMD (or WebAssembly itself) is not supported.
    if (wasm === undefined || !wasm.validate(MODULE)) return undefined;
    const { exports } = new wasm.Instance(new wasm.Module(MODULE));
    const memory = new Uint8Array((exports.memory as { buffer: ArrayBuffer }).buffer);
    return { memory, count: exports.count as Counter['count'] };
  } catch {
    return undefined;
  }
}

const simd = instantiate((globalThis as { WebAssembly?: WasmRuntime }).WebAssembly);

/** Whether the WebAssembly SIMD count is in use (false: the plain JS one). */
export const SIMD_BYTE_COUNT = simd !== undefined;

/** How many bytes of `bytes` equal `byte` (0-255), by WebAssembly SIMD where available. */
export function countByte(bytes: Uint8Array, byte: number): number {
  if (simd === undefined) return countByteJs(bytes, byte);
  let n = 0;
  for (let at = 0; at < bytes.length; at += PAGE_BYTES) {
    const piece = bytes.subarray(at, at + PAGE_BYTES);
    simd.memory.set(piece); // a memcpy
    n += simd.count(piece.length, byte);
  }
  return n;
}

/** The same count in plain JS: one `indexOf` (a memchr) per occurrence. */
export function countByteJs(bytes: Uint8Array, byte: number): number {
  let n = 0;
  for (let i = bytes.indexOf(byte); i >= 0; i = bytes.indexOf(byte, i + 1)) n++;
  return n;
}
