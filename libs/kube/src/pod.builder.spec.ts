import { describe, expect, it } from '@jest/globals';
import { KUBE_LABELS, MANAGED_BY } from './labels';
import { buildInstancePod, buildReadinessProbe } from './pod.builder';
import { exampleAppSpec } from './example-spec.fixture';

const base = { namespace: 'sandbox-apps', app: 'demo', instanceId: 'abcde12345', templateHash: 'h1' };

describe('buildInstancePod', () => {
  const pod = buildInstancePod({ ...base, spec: exampleAppSpec() });
  const container = pod.spec?.containers[0];

  it('runs under gVisor without a service-account token or service links', () => {
    expect(pod.spec).toMatchObject({
      runtimeClassName: 'gvisor',
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      hostNetwork: false,
      hostPID: false,
      hostIPC: false,
      restartPolicy: 'Never',
    });
    expect(
      buildInstancePod({ ...base, spec: exampleAppSpec(), runtimeClassName: 'runsc' }).spec?.runtimeClassName,
    ).toBe('runsc');
  });

  it('is named and labelled by app, instance, kind and template', () => {
    expect(pod.metadata).toEqual({
      name: 'demo-abcde12345',
      namespace: 'sandbox-apps',
      labels: {
        [KUBE_LABELS.managedBy]: MANAGED_BY,
        [KUBE_LABELS.app]: 'demo',
        [KUBE_LABELS.instance]: 'abcde12345',
        [KUBE_LABELS.kind]: 'single-session',
        [KUBE_LABELS.template]: 'h1',
      },
    });
  });

  it('has a restricted security context, equal limits and requests, and only the spec environment', () => {
    expect(pod.spec?.securityContext).toMatchObject({
      runAsNonRoot: true,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(container?.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      privileged: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      runAsUser: 65534,
      runAsGroup: 65534,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(container?.resources).toEqual({
      limits: { cpu: '500m', memory: '256Mi' },
      requests: { cpu: '500m', memory: '256Mi' },
    });
    expect(container?.env).toEqual([{ name: 'GREETING', value: 'hello' }]);
    expect(container?.ports).toEqual([{ name: 'app', containerPort: 8080, protocol: 'TCP' }]);
    expect(container?.args).toBeUndefined();
    expect(pod.spec?.volumes).toEqual([{ name: 'tmp', emptyDir: { medium: 'Memory', sizeLimit: '64Mi' } }]);
  });

  it('passes args (replacing CMD) and keeps the node resolver unless egress internet has resolvers', () => {
    const withArgs = buildInstancePod({ ...base, spec: exampleAppSpec({ args: ['--fast'] }) });
    expect(withArgs.spec?.containers[0]?.args).toEqual(['--fast']);
    expect(withArgs.spec?.dnsPolicy).toBeUndefined();
    const none = buildInstancePod({ ...base, spec: exampleAppSpec(), dnsServers: ['9.9.9.9'] });
    expect(none.spec?.dnsPolicy).toBeUndefined();
    const internet = buildInstancePod({
      ...base,
      spec: exampleAppSpec({ egress: 'internet' }),
      dnsServers: ['9.9.9.9'],
    });
    expect(internet.spec).toMatchObject({ dnsPolicy: 'None', dnsConfig: { nameservers: ['9.9.9.9'] } });
  });
});

describe('buildReadinessProbe', () => {
  it('probes HTTP for 2xx/3xx statuses and falls back to TCP otherwise', () => {
    expect(buildReadinessProbe({ type: 'http', path: '/ready', expectedStatus: 204 }, 3000)).toMatchObject({
      periodSeconds: 1,
      httpGet: { path: '/ready', port: 3000 },
    });
    const other = buildReadinessProbe({ type: 'http', path: '/ready', expectedStatus: 418 }, 3000);
    expect(other.httpGet).toBeUndefined();
    expect(other.tcpSocket).toEqual({ port: 3000 });
    expect(buildReadinessProbe({ type: 'tcp' }, 80).tcpSocket).toEqual({ port: 80 });
  });
});
