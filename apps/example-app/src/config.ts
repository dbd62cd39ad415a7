/** The example app's settings, from its environment. */
export interface ExampleConfig {
  host: string;
  port: number;
}

/** The environment is invalid; every problem is listed. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`invalid configuration: ${problems.join('; ')}`);
  }
}

/**
 * Reads `PORT` (default 8080) and `HOST` (default 127.0.0.1; images set 0.0.0.0 so the app answers on
 * the sandbox's veth address). Plain parsing: the app has no dependencies at all.
 */
export function loadConfig(env: Record<string, string | undefined>): ExampleConfig {
  const problems: string[] = [];
  const portText = env['PORT'] ?? '8080';
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port < 1 || port > 65535)
    problems.push('PORT must be an integer from 1 to 65535');
  const host = env['HOST'] ?? '127.0.0.1';
  if (!/^[0-9a-fA-F.:]+$|^localhost$/.test(host)) problems.push('HOST must be an IP address or localhost');
  if (problems.length > 0) throw new ConfigError(problems);
  return { host, port };
}

/** {@link loadConfig} of this process's environment. */
export function loadProcessConfig(): ExampleConfig {
  return loadConfig(process.env);
}
