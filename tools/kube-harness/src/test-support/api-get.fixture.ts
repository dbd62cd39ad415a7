import { readFile } from 'node:fs/promises';
import { request } from 'node:https';
import type { KubeHarness } from '../control-plane/kube-harness';

/** GET a path of the harness's API as the admin and parse the JSON answer. */
export async function apiGet<T>(harness: KubeHarness, path: string): Promise<T> {
  const { pki } = harness;
  const [ca, cert, key] = await Promise.all(
    [pki.caCert, pki.adminCert, pki.adminKey].map((file) => readFile(file)),
  );
  return new Promise((resolve, reject) => {
    const req = request(`${harness.server}${path}`, { ca, cert, key, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        if (res.statusCode !== 200) reject(new Error(`GET ${path}: ${res.statusCode} ${body}`));
        else resolve(JSON.parse(body) as T);
      });
    });
    req.on('error', reject);
    req.end();
  });
}

interface ResourceList {
  resources: { name: string }[];
}

/**
 * Every `group/resource` (and `group/resource/subresource`) the API server serves, by discovery;
 * the core group is ''.
 */
export async function servedResources(harness: KubeHarness): Promise<Set<string>> {
  const served = new Set<string>();
  const add = (group: string, list: ResourceList) => {
    for (const resource of list.resources) served.add(`${group}/${resource.name}`);
  };
  add('', await apiGet<ResourceList>(harness, '/api/v1'));
  const groups = await apiGet<{ groups: { name: string; preferredVersion: { groupVersion: string } }[] }>(
    harness,
    '/apis',
  );
  for (const group of groups.groups) {
    add(group.name, await apiGet<ResourceList>(harness, `/apis/${group.preferredVersion.groupVersion}`));
  }
  return served;
}
