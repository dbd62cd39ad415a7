import { describe, expect, it } from '@jest/globals';
import { UsageError } from './cli/errors';
import {
  configPath,
  ConfigFileSchema,
  readConfigFile,
  resolveSettings,
  type ServiceDefinition,
} from './config';
import { findStackTokenFile, isLoopbackUrl } from './token-files';

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
      'instance-manager': {
        url: 'http://lab:7101',
        tokenFile: '/cfg/sandboxctl/tokens/im',
        tokenSource: 'context "lab", instance-manager',
      },
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
      tokenSource: 'SANDBOXCTL_ADAPTER_TOKEN_FILE',
    });
    expect(
      resolveSettings(services, env, { context: 'prod', server: ['adapter=http://flag:2'] }, file, path)
        .endpoints['adapter'],
    ).toEqual({ url: 'http://flag:2', tokenFile: '/t', tokenSource: 'SANDBOXCTL_ADAPTER_TOKEN_FILE' });
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

describe('token files', () => {
  const path = '/cfg/sandboxctl/config.yaml';
  const withTokens = ConfigFileSchema.parse({
    currentContext: 'lab',
    contexts: {
      lab: {
        tokenFile: 'tokens/all',
        services: { adapter: { url: 'http://lab:7102', tokenFile: 'tokens/adapter' } },
      },
    },
  });

  it("prefers a service's own token file, then the context's, and says where each came from", () => {
    expect(resolveSettings(services, {}, {}, withTokens, path).endpoints).toEqual({
      'instance-manager': {
        url: 'http://127.0.0.1:7101',
        tokenFile: '/cfg/sandboxctl/tokens/all',
        tokenSource: 'context "lab"',
      },
      adapter: {
        url: 'http://lab:7102',
        tokenFile: '/cfg/sandboxctl/tokens/adapter',
        tokenSource: 'context "lab", adapter',
      },
    });
  });

  it('lets the environment beat the config file, a service variable beat SANDBOXCTL_TOKEN_FILE', () => {
    const env = { SANDBOXCTL_TOKEN_FILE: '/env/all', SANDBOXCTL_ADAPTER_TOKEN_FILE: '/env/adapter' };
    const { endpoints } = resolveSettings(services, env, {}, withTokens, path);
    expect(endpoints['adapter']).toMatchObject({
      tokenFile: '/env/adapter',
      tokenSource: 'SANDBOXCTL_ADAPTER_TOKEN_FILE',
    });
    expect(endpoints['instance-manager']).toMatchObject({
      tokenFile: '/env/all',
      tokenSource: 'SANDBOXCTL_TOKEN_FILE',
    });
  });

  it("falls back to the embedded stack's admin token, only for endpoints on this machine", () => {
    const empty = ConfigFileSchema.parse({});
    const flags = { server: ['adapter=http://10.0.0.5:7102'] };
    const { endpoints } = resolveSettings(
      services,
      {},
      flags,
      empty,
      path,
      '/repo/.data/secrets/admin-token',
    );
    expect(endpoints['instance-manager']).toEqual({
      url: 'http://127.0.0.1:7101',
      tokenFile: '/repo/.data/secrets/admin-token',
      tokenSource: "the embedded stack's admin token",
    });
    expect(endpoints['adapter']).toEqual({ url: 'http://10.0.0.5:7102' });
  });
});

describe('findStackTokenFile', () => {
  const files = new Set(['/repo/nx.json', '/repo/.data/secrets/admin-token', '/other/nx.json']);
  const exists = (file: string) => files.has(file);

  it('finds the admin token of the repository holding a start folder, if `npm start` wrote it', () => {
    expect(findStackTokenFile(['/repo/apps/sandboxctl/src'], exists)).toBe('/repo/.data/secrets/admin-token');
    expect(findStackTokenFile(['/other/apps', '/repo'], exists)).toBe('/repo/.data/secrets/admin-token');
    expect(findStackTokenFile(['/other/apps', '/elsewhere'], exists)).toBeUndefined();
  });

  it('knows which URLs are on this machine', () => {
    expect(['http://127.0.0.1:7101', 'http://localhost:1', 'http://[::1]:2'].map(isLoopbackUrl)).toEqual([
      true,
      true,
      true,
    ]);
    expect(isLoopbackUrl('http://10.0.0.5:7101')).toBe(false);
  });
});
