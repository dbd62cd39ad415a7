/** One JSON log line on stdout; fields never carry request bodies (seeds travel in them). */
export function jsonLog(
  level: 'info' | 'warn' | 'error',
  msg: string,
  fields: Record<string, unknown> = {},
): void {
  process.stdout.write(`${JSON.stringify({ level, time: new Date().toISOString(), msg, ...fields })}\n`);
}
