/** A structured logger: one JSON object per line on stdout (stderr for errors). */
export type Log = (level: 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => void;

/** The real {@link Log}; messages are fixed strings, variables go in fields. */
export const jsonLog: Log = (level, msg, fields = {}) => {
  const line = `${JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })}\n`;
  if (level === 'error') process.stderr.write(line);
  else process.stdout.write(line);
};
