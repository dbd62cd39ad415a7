import { CLUSTER_NETWORK } from './cluster-layout';
import { KUBE_ROUTER_USER } from './cluster-pki';

/** Image reference of the CoreDNS image the cluster imports (one static binary). */
export function coreDnsImage(tag: string): string {
  return `localhost/sandbox-cluster/coredns:${tag}`;
}

/** CoreDNS answers cluster names only: no `forward`, so no query ever leaves the machine. */
export const COREFILE = `.:53 {
    errors
    health :8080
    ready :8181
    kubernetes ${CLUSTER_NETWORK.clusterDomain} in-addr.arpa ip6.arpa {
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
    }
    cache 30
}
`;

const labels = { 'k8s-app': 'kube-dns' };

/** RBAC of kube-router's policy controller: read what policies select, nothing else. */
function kubeRouterRbac(): object[] {
  return [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: KUBE_ROUTER_USER },
      rules: [
        {
          apiGroups: [''],
          resources: ['pods', 'namespaces', 'nodes', 'services', 'endpoints'],
          verbs: ['get', 'list', 'watch'],
        },
        { apiGroups: ['networking.k8s.io'], resources: ['networkpolicies'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['get', 'list', 'watch'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: KUBE_ROUTER_USER },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: KUBE_ROUTER_USER },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: KUBE_ROUTER_USER }],
    },
  ];
}

/** CoreDNS's identity, as k3s's `system:coredns`: read Services, EndpointSlices, Namespaces, Pods. */
function coreDnsRbac(): object[] {
  return [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'coredns', namespace: 'kube-system' } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'system:coredns' },
      rules: [
        {
          apiGroups: [''],
          resources: ['endpoints', 'services', 'pods', 'namespaces'],
          verbs: ['list', 'watch'],
        },
        { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list', 'watch'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'system:coredns' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:coredns' },
      subjects: [{ kind: 'ServiceAccount', name: 'coredns', namespace: 'kube-system' }],
    },
  ];
}

function coreDnsWorkload(image: string): object[] {
  const port = (name: string, containerPort: number, protocol: string): object => ({
    name,
    containerPort,
    protocol,
  });
  return [
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'coredns', namespace: 'kube-system' },
      data: { Corefile: COREFILE },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'coredns', namespace: 'kube-system', labels },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: 'coredns',
            priorityClassName: 'system-cluster-critical',
            dnsPolicy: 'Default',
            containers: [
              {
                name: 'coredns',
                image,
                imagePullPolicy: 'Never',
                args: ['-conf', '/etc/coredns/Corefile'],
                ports: [port('dns', 53, 'UDP'), port('dns-tcp', 53, 'TCP')],
                resources: { limits: { memory: '170Mi' }, requests: { cpu: '100m', memory: '70Mi' } },
                securityContext: {
                  allowPrivilegeEscalation: false,
                  readOnlyRootFilesystem: true,
                  capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] },
                },
                readinessProbe: { httpGet: { path: '/ready', port: 8181 }, periodSeconds: 1 },
                livenessProbe: { httpGet: { path: '/health', port: 8080 }, periodSeconds: 10 },
                volumeMounts: [{ name: 'config', mountPath: '/etc/coredns', readOnly: true }],
              },
            ],
            volumes: [{ name: 'config', configMap: { name: 'coredns' } }],
          },
        },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'kube-dns', namespace: 'kube-system', labels },
      spec: {
        selector: labels,
        clusterIP: CLUSTER_NETWORK.dnsIp,
        ports: [
          { name: 'dns', port: 53, protocol: 'UDP', targetPort: 53 },
          { name: 'dns-tcp', port: 53, protocol: 'TCP', targetPort: 53 },
        ],
      },
    },
  ];
}

/** Everything the cluster applies after the API server is up, as one `kubectl apply` list. */
export function clusterAddons(coreDnsImageRef: string): string {
  const items = [...kubeRouterRbac(), ...coreDnsRbac(), ...coreDnsWorkload(coreDnsImageRef)];
  return `${JSON.stringify({ apiVersion: 'v1', kind: 'List', items }, null, 2)}\n`;
}
