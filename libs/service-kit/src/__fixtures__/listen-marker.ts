// Apart from listen-spy.ts, whose import patches `listen`: a spec reads the marker without being spied on.
/** What the listen spy writes to stderr each time something starts listening. */
export const LISTEN_MARKER = 'listen-spy: listen called';
