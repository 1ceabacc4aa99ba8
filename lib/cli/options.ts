/**
 * The command-line parsing every command uses lives in lib/command-line (the local service's
 * `npm run sim` parses its options with it too, and may not import lib/cli): its names,
 * under the path the commands import them by.
 */
export * from '../command-line/options';
