// The checks live with the stores (the local lease store records its holders' identity and
// stores may not import lib/local); the local runtime and the CLI take them from here.
export {
  currentProcess,
  describeProcess,
  type ProcessIdentity,
  parseProcessIdentity,
  processAlive,
  processGone,
  processStartedAtMs,
  processStartTime,
} from '../stores';
