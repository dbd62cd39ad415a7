import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { clusterCreateArgs, clusterName } from './cluster';
import { nodeImageBuildArgs, nodeImageTag, NODE_IMAGE_INPUTS, REPO_ROOT } from './node-image';
import { K3S_BASE_IMAGE } from './pins';
import { isGvisorKernel } from './pod-probes';
import { CLIENT_NAMESPACE, parseSteps, sdkClientManifest } from './sdk-client-pod';

describe('the k3s-with-gVisor node image', () => {
  it('is tagged by a hash of its inputs, and built with the contexts and base the Dockerfile names', async () => {
    const tag = await nodeImageTag();
    expect(tag).toMatch(/^localhost\/sandbox-k3s-gvisor:[0-9a-f]{16}$/);
    expect(await nodeImageTag()).toBe(tag);
    const dockerfile = await readFile(join(REPO_ROOT, NODE_IMAGE_INPUTS.dockerfile), 'utf8');
    const args = nodeImageBuildArgs(tag);
    for (const context of ['runsc-module', 'shim-module']) {
      expect(dockerfile).toContain(`--from=${context} go.mod go.sum`);
      expect(args.some((arg) => arg.startsWith(`${context}=`))).toBe(true);
    }
    expect(dockerfile).toContain(`ARG K3S_IMAGE=${K3S_BASE_IMAGE}\n`);
    expect(dockerfile).toContain(
      'COPY config-v3.toml.tmpl /var/lib/rancher/k3s/agent/etc/containerd/config-v3.toml.tmpl',
    );
    // The template's runsc runtime reads its flags from the path it names.
    const template = await readFile(join(REPO_ROOT, NODE_IMAGE_INPUTS.template), 'utf8');
    const configPath = /ConfigPath = "([^"]+)"/.exec(template)?.[1];
    expect(dockerfile).toContain(`COPY runsc.toml ${configPath}\n`);
    expect(args.at(-1)).toBe(join(REPO_ROOT, 'deploy', 'k3s'));
  });

  it("stamps runsc with the gVisor version of the runsc module, as the local driver's build does", async () => {
    const dockerfile = await readFile(join(REPO_ROOT, NODE_IMAGE_INPUTS.dockerfile), 'utf8');
    const sed = /sed -n '([^']+)' go\.mod/.exec(dockerfile)?.[1] ?? '';
    const goMod = join(REPO_ROOT, NODE_IMAGE_INPUTS.runscModule, 'go.mod');
    const version = spawnSync('sed', ['-n', sed, goMod], { encoding: 'utf8' }).stdout.trim();
    expect(version).toMatch(/^v0\.0\.0-\d{14}-[0-9a-f]{12}$/);
    expect(await readFile(goMod, 'utf8')).toContain(`gvisor.dev/gvisor ${version}`);
  });
});

describe('the k3d cluster', () => {
  it('has a unique name and its API on loopback, with the node image', () => {
    expect(clusterName()).toMatch(/^sbx-e2e-[0-9a-f]{6}$/);
    expect(clusterName()).not.toBe(clusterName());
    const args = clusterCreateArgs('sbx-e2e-abcdef', 'localhost/sandbox-k3s-gvisor:1', 41234);
    expect(args.slice(0, 3)).toEqual(['cluster', 'create', 'sbx-e2e-abcdef']);
    expect(args).toEqual(
      expect.arrayContaining(['--image', 'localhost/sandbox-k3s-gvisor:1', '--api-port', '127.0.0.1:41234']),
    );
    expect(args).toContain('--kubeconfig-update-default=false');
  });
});

describe('the gVisor kernel check', () => {
  it("tells gVisor's Sentry from the node's kernel and from a real 4.4 kernel", () => {
    const sentry = { release: '4.4.0', version: 'Linux version 4.4.0 #1 SMP Sun Jan 10 15:06:54 PST 2016' };
    expect(isGvisorKernel(sentry, '6.8.0-45-generic')).toBe(true);
    expect(
      isGvisorKernel(
        {
          release: '4.19.0-gvisor',
          version: 'Linux version 4.19.0-gvisor #1 SMP Sun Jan 10 15:06:54 PST 2016',
        },
        '6.8.0',
      ),
    ).toBe(true);
    expect(
      isGvisorKernel(
        {
          release: '6.8.0-45-generic',
          version: 'Linux version 6.8.0-45-generic (buildd@lcy02) #45-Ubuntu SMP',
        },
        '6.8.0-45-generic',
      ),
    ).toBe(false);
    expect(
      isGvisorKernel(
        {
          release: '4.4.0-210-generic',
          version: 'Linux version 4.4.0-210-generic (buildd@lgw01) #242-Ubuntu SMP',
        },
        '6.8.0',
      ),
    ).toBe(false);
  });
});

describe('the SDK client pod', () => {
  it('runs the repository script from a ConfigMap in its own namespace, without a service-account token', () => {
    const objects = sdkClientManifest(
      'print(1)\n',
      'echo',
      'sdk-client-echo',
      'localhost/sandbox-sdk-client:1',
      ['--hold-seconds', '30'],
    )
      .split('\n---\n')
      .map(
        (text) =>
          JSON.parse(text) as {
            kind: string;
            metadata: { namespace?: string };
            spec?: Record<string, unknown>;
            data?: Record<string, string>;
          },
      );
    expect(objects.map((o) => o.kind)).toEqual(['Namespace', 'ConfigMap', 'Pod']);
    expect(objects[1]?.data).toEqual({ 'sdk_client.py': 'print(1)\n' });
    expect(objects[2]?.metadata.namespace).toBe(CLIENT_NAMESPACE);
    expect(objects[2]?.spec?.['automountServiceAccountToken']).toBe(false);
    expect(JSON.stringify(objects[2])).toContain('http://livepeer-node.sandbox-system.svc:8935');
    const container = (
      objects[2]?.spec?.['containers'] as { image: string; imagePullPolicy: string; command: string[] }[]
    )[0];
    // The image the suite built and imported: never pulled, no pip at run time.
    expect(container?.image).toBe('localhost/sandbox-sdk-client:1');
    expect(container?.imagePullPolicy).toBe('Never');
    // Node's URL, the app, the signer (node-sim's public port), then the extra arguments.
    expect(container?.command.slice(2)).toEqual([
      'http://livepeer-node.sandbox-system.svc:8935',
      'echo',
      'http://livepeer-node.sandbox-system.svc:8935',
      '--hold-seconds',
      '30',
    ]);
  });

  it('reads the JSON steps out of interleaved output', () => {
    const output = [
      'Collecting x',
      '{"step": "discovered", "count": 2}',
      '{ not json',
      '{"not": "a step"}',
      '{"step": "stopped"}',
    ].join('\n');
    expect(parseSteps(output)).toEqual([{ step: 'discovered', count: 2 }, { step: 'stopped' }]);
  });
});
