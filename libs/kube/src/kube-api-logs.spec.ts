// readPodLog through the real client-node CoreV1Api, against a local HTTP server answering as the API
// server does: an empty log comes back with no Content-Type at all.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CoreV1Api, KubeConfig, KubernetesObjectApi, NetworkingV1Api } from '@kubernetes/client-node';
import { createKubeApi, type KubeApi } from './kube-api';

const LOGS: Record<string, { status: number; type?: string; body: string }> = {
  '/api/v1/namespaces/apps/pods/quiet/log': { status: 200, body: '' },
  '/api/v1/namespaces/apps/pods/talks/log': {
    status: 200,
    type: 'text/plain',
    body: '2025-01-01T00:00:00Z hello\n',
  },
  '/api/v1/namespaces/apps/pods/broken/log': {
    status: 500,
    type: 'application/json',
    body: JSON.stringify({ kind: 'Status', message: 'boom' }),
  },
};

let server: Server;
let api: KubeApi;

beforeAll(async () => {
  server = createServer((req, res) => {
    const answer = LOGS[new URL(req.url ?? '/', 'http://x').pathname] ?? { status: 404, body: '' };
    // No Content-Type unless the answer has one (node:http adds none by itself).
    res.writeHead(answer.status, answer.type ? { 'content-type': answer.type } : {});
    res.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const config = new KubeConfig();
  config.loadFromClusterAndUser(
    { name: 'c', server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, skipTLSVerify: true },
    { name: 'u', token: 'test' },
  );
  api = createKubeApi(
    {
      objects: KubernetesObjectApi.makeApiClient(config),
      core: config.makeApiClient(CoreV1Api),
      networking: config.makeApiClient(NetworkingV1Api),
    },
    { namespace: 'apps', fieldManager: 'kube-api-logs-spec' },
  );
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('readPodLog against an HTTP API server', () => {
  it('reads an empty log (no Content-Type) as empty, not as a parse error', async () => {
    await expect(api.readPodLog('quiet', 100)).resolves.toBe('');
  });

  it('reads a log with its lines, a gone pod as empty, and still reports other failures', async () => {
    await expect(api.readPodLog('talks', 100)).resolves.toBe('2025-01-01T00:00:00Z hello\n');
    await expect(api.readPodLog('gone', 100)).resolves.toBe('');
    await expect(api.readPodLog('broken', 100)).rejects.toThrow();
  });
});
