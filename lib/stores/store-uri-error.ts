/** Thrown for a URI (or setting value) no adapter takes; names the setting. */
export class StoreUriError extends Error {
  readonly code = 'STORE_URI_INVALID';
  constructor(setting: string, uri: string, expected: string) {
    super(`${setting} ${JSON.stringify(uri)} is not ${expected}`);
    this.name = 'StoreUriError';
  }
}
