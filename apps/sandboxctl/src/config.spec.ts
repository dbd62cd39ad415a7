import { describe, expect, it } from '@jest/globals';
import { UsageError } from './cli/errors';
import {
  configPath,
  ConfigFileSchema,
  readConfigFile,
  resolveSettings,
  type ServiceDefinition,
} from './config';

const services: ServiceDefinition[] = [
  { name: 'instance-manager', defaultUrl: 'http://127.0.0.1:7101' },
  { name: 'adapter', defaultUrl: 'http://127.0.0.1:7102' },
];

const file = ConfigFileSchema.parse({
  currentContext: 'lab',
  contexts: {
    lab: { services: { 'instance-manager': { url: 'http://lab:7101', tokenFile: 'tokens/im' } } },
    prod: { services: { adapter: { url: 'https://prod:7102', tokenFile: '/etc/sandbox/adapter.token' } } },
  },
});

describe('configPath', () => {
  it('prefers SANDBOXCTL_CONFIG, then XDG_CONFIG_HOME, then ~/.config', () => {
    expect(configPath({ SANDBOXCTL_CONFIG: '/tmp/x.yaml', XDG_CONFIG_HOME: '/xdg', HOME: '/home/u' })).toBe(
      '/tmp/x.yaml',
    );
    expect(configPath({ XDG_CONFIG_HOME: '/xdg', HOME: '/home/u' })).toBe('/xdg/sandboxctl/config.yaml');
    expect(configPath({ HOME: '/home/u' })).toBe('/home/u/.config/sandboxctl/config.yaml');
  });
});

describe('resolveSettings', () => {
  const path = '/cfg/sandboxctl/config.yaml';

  it('uses the current context over the defaults, token files relative to the config file', () => {
    const settings = resolveSettings(services, {}, {}, file, path);
    expect(settings.context).toBe('lab');
    expect(settings.endpoints).toEqual({
      'instance-manager': { url: 'http://lab:7101', tokenFile: '/cfg/sandboxctl/tokens/im' },
      adapter: { url: 'http://127.0.0.1:7102' },
    });
  });

  it('lets --context beat SANDBOXCTL_CONTEXT, env beat the context and --server beat env', () => {
    const env = {
      SANDBOXCTL_CONTEXT: 'lab',
      SANDBOXCTL_ADAPTER_URL: 'http://env:1',
      SANDBOXCTL_ADAPTER_TOKEN_FILE: '/t',
    };
    expect(resolveSettings(services, env, { context: 'prod' }, file, path).endpoints['adapter']).toEqual({
      url: 'http://env:1',
      tokenFile: '/t',
    });
    expect(
      resolveSettings(services, env, { context: 'prod', server: ['adapter=http://flag:2'] }, file, path)
        .endpoints['adapter'],
    ).toEqual({ url: 'http://flag:2', tokenFile: '/t' });
  });

  it('refuses an unknown context or service as usage errors', () => {
    expect(() => resolveSettings(services, {}, { context: 'nope' }, file, path)).toThrow(UsageError);
    expect(() => resolveSettings(services, {}, { server: ['verifier=http://x:1'] }, file, path)).toThrow(
      /SERVICE one of instance-manager, adapter/,
    );
    expect(() => resolveSettings(services, {}, { server: ['adapter=ftp://x'] }, file, path)).toThrow(
      UsageError,
    );
  });

  it('treats a missing file as empty and names the bad field of an invalid one', () => {
    expect(readConfigFile('/nonexistent/config.yaml')).toEqual({ contexts: {} });
    const read = () => 'contexts:\n  lab:\n    services:\n      adapter: { url: not-a-url }\n';
    expect(() => readConfigFile('/c.yaml', read)).toThrow(
      /\/c\.yaml is invalid: contexts\.lab\.services\.adapter\.url/,
    );
  });
});
