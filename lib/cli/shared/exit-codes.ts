/**
 * The exit status of a run that succeeded but whose shrink guard held partitions. Not 0:
 * nothing is lost (the published partitions stay, whole), but the lake did not take this
 * run's data, and the nightly look-back holds the same days every night until someone
 * decides (the service corrected them: `--force-replace`; or it lost data: ask it), so a
 * cron job or CI step that reads only the exit status must see it, as the deployment's
 * PartitionsHeld alarm does. Not 1: that is a failed run, and a script must be able to tell
 * the two apart (as rsync's 24, "some source files vanished", is told from its errors, and
 * a Nagios check's WARNING from its CRITICAL). 2 is a usage error. A constant module: the
 * commands' specs (help) read it.
 */
export const HELD_EXIT_CODE = 3;

/** How the help of every command that runs the workflow states it. */
export const HELD_EXIT_NOTE = `${HELD_EXIT_CODE} it succeeded but the shrink guard held partitions (the published ones kept, each named on stderr; --force-replace, or forceReplace in the input, replaces them)`;
