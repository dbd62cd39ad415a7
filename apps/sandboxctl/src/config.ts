import type { ServiceName } from '@sandbox/protocol';
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { summarizeZodIssues } from '@sandbox/protocol';
import { z } from 'zod';
import type { ServiceEndpoint } from './client/api-client';
import { CliError, envKey, UsageError } from './cli/errors';
import { isLoopbackUrl } from './token-files';

/** A service sandboxctl talks to, and where it listens by default (the embedded stack's port). */
export interface ServiceDefinition {
  readonly name: ServiceName;
  readonly defaultUrl: string;
}

const EndpointSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/ }),
  /** A file holding the bearer token for this service; relative paths are relative to the config file. */
  tokenFile: z.string().min(1).optional(),
});

const ContextSchema = z.strictObject({
  /** The token file of every service of the context that names none of its own. */
  tokenFile: z.string().min(1).optional(),
  services: z.record(z.string(), EndpointSchema.partial()).default({}),
});

/** `config.yaml`: named contexts, each with the endpoint and token file of each service. */
export const ConfigFileSchema = z.strictObject({
  currentContext: z.string().min(1).optional(),
  contexts: z.record(z.string().min(1), ContextSchema).default({}),
});
export type ConfigFile = z.infer<typeof ConfigFileSchema>;

/** The variables sandboxctl reads (nothing else of the environment is used). */
export interface CliEnv {
  readonly [name: string]: string | undefined;
}

/** What the global flags say about where to connect. */
export interface ConnectionFlags {
  context?: string;
  /** `service=URL` pairs. */
  server?: readonly string[];
}

/** The endpoints in effect and where they came from. */
export interface ResolvedSettings {
  configPath: string;
  context: string | undefined;
  endpoints: Record<string, ServiceEndpoint>;
}

/** `$SANDBOXCTL_CONFIG`, else `$XDG_CONFIG_HOME/sandboxctl/config.yaml`, else `~/.config/sandboxctl/config.yaml`. */
export function configPath(env: CliEnv): string {
  if (env['SANDBOXCTL_CONFIG']) return resolve(env['SANDBOXCTL_CONFIG']);
  const base = env['XDG_CONFIG_HOME'] || join(env['HOME'] ?? '.', '.config');
  return join(base, 'sandboxctl', 'config.yaml');
}

/** Reads and validates the config file; a missing file is an empty configuration. */
export function readConfigFile(
  path: string,
  read = (file: string) => readFileSync(file, 'utf8'),
): ConfigFile {
  let text: string;
  try {
    text = read(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return ConfigFileSchema.parse({});
    throw new CliError(`cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
  let data: unknown;
  try {
    data = parseYaml(text) ?? {};
  } catch (error) {
    throw new CliError(`${path} is not valid YAML: ${(error as Error).message}`, { cause: error });
  }
  const parsed = ConfigFileSchema.safeParse(data);
  if (!parsed.success) throw new CliError(`${path} is invalid: ${summarizeZodIssues(parsed.error)}`);
  return parsed.data;
}

function parseServerFlag(pair: string, known: ReadonlySet<string>): [string, string] {
  const at = pair.indexOf('=');
  const [name, url] = at < 0 ? ['', pair] : [pair.slice(0, at), pair.slice(at + 1)];
  if (!known.has(name))
    throw new UsageError(
      `--server takes SERVICE=URL with SERVICE one of ${[...known].join(', ')}; got "${pair}"`,
    );
  if (!EndpointSchema.shape.url.safeParse(url).success)
    throw new UsageError(`--server ${name}= needs an http(s) URL`);
  return [name, url];
}

/**
 * A service's token file and where it was set, highest first: `SANDBOXCTL_<SERVICE>_TOKEN_FILE`,
 * `SANDBOXCTL_TOKEN_FILE`, the context's service, the context; else the embedded stack's admin token
 * (only for an endpoint on this machine).
 */
function tokenOf(
  name: string,
  env: CliEnv,
  context: { name?: string; tokenFile?: string; serviceTokenFile?: string },
  relativeToConfig: (file: string) => string,
  stack: { tokenFile?: string; url: string },
): Pick<ServiceEndpoint, 'tokenFile' | 'tokenSource'> {
  const serviceVariable = `SANDBOXCTL_${envKey(name)}_TOKEN_FILE`;
  const candidates: [string | undefined, string][] = [
    [env[serviceVariable], serviceVariable],
    [env['SANDBOXCTL_TOKEN_FILE'], 'SANDBOXCTL_TOKEN_FILE'],
  ];
  for (const [tokenFile, tokenSource] of candidates)
    if (tokenFile) return { tokenFile: resolve(tokenFile), tokenSource };
  if (context.serviceTokenFile)
    return {
      tokenFile: relativeToConfig(context.serviceTokenFile),
      tokenSource: `context "${context.name}", ${name}`,
    };
  if (context.tokenFile)
    return { tokenFile: relativeToConfig(context.tokenFile), tokenSource: `context "${context.name}"` };
  if (stack.tokenFile && isLoopbackUrl(stack.url))
    return { tokenFile: stack.tokenFile, tokenSource: "the embedded stack's admin token" };
  return {};
}

/**
 * Precedence: `--server` flags, then `SANDBOXCTL_<SERVICE>_URL`, then the context, then defaults; token
 * files as {@link tokenOf} says. `stackTokenFile` is the embedded stack's admin token, if it exists.
 */
export function resolveSettings(
  services: readonly ServiceDefinition[],
  env: CliEnv,
  flags: ConnectionFlags,
  file: ConfigFile,
  path: string,
  stackTokenFile?: string,
): ResolvedSettings {
  const known = new Set<string>(services.map((service) => service.name));
  const contextName = flags.context ?? env['SANDBOXCTL_CONTEXT'] ?? file.currentContext;
  const context = contextName === undefined ? undefined : file.contexts[contextName];
  if (contextName !== undefined && context === undefined)
    throw new UsageError(`no context "${contextName}" in ${path}`);
  for (const name of Object.keys(context?.services ?? {}))
    if (!known.has(name))
      throw new CliError(`${path}: unknown service "${name}" in context "${contextName}"`);
  const relativeToConfig = (file: string) => (isAbsolute(file) ? file : resolve(dirname(path), file));
  const endpoints: Record<string, ServiceEndpoint> = {};
  const urls = new Map((flags.server ?? []).map((pair) => parseServerFlag(pair, known)));
  for (const { name, defaultUrl } of services) {
    const fromContext = context?.services[name] ?? {};
    const url = urls.get(name) ?? (env[`SANDBOXCTL_${envKey(name)}_URL`] || fromContext.url || defaultUrl);
    const contextTokens = {
      name: contextName,
      tokenFile: context?.tokenFile,
      serviceTokenFile: fromContext.tokenFile,
    };
    const token = tokenOf(name, env, contextTokens, relativeToConfig, { tokenFile: stackTokenFile, url });
    endpoints[name] = { url, ...token };
  }
  return { configPath: path, context: contextName, endpoints };
}

/** Reads a token file, saying which file failed and why (never what it holds). */
export function readTokenFile(path: string): string {
  try {
    const text = readFileSync(path, 'utf8');
    if (text.trim() === '') throw new CliError(`token file ${path} is empty`);
    return text;
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(
      `cannot read token file ${path}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`,
      {
        cause: error,
      },
    );
  }
}

/** The process environment, read once by main.ts. */
export function processEnv(): CliEnv {
  return process.env;
}
