import {
  CoreV1Api,
  KubeConfig,
  KubernetesObjectApi,
  NetworkingV1Api,
  makeInformer,
} from '@kubernetes/client-node';
import type {
  Informer,
  KubernetesObject,
  ObjectCache,
  V1NetworkPolicy,
  V1Node,
  V1Pod,
} from '@kubernetes/client-node';
import { createKubeApi } from './kube-api';
import type { KubeApiTarget } from './kube-api';
import type { KubeApi } from './kube-api';
import type { InformerSource } from './resilient-informer';

/** A connection to one namespace: the API calls and a factory of pod informers. */
export interface KubeConnection {
  api: KubeApi;
  /** A fresh client-node informer over the namespace's pods matching the selector. */
  createPodInformer(labelSelector: string): InformerSource<V1Pod>;
  /** A fresh client-node informer over the namespace's NetworkPolicies matching the selector. */
  createNetworkPolicyInformer(labelSelector: string): InformerSource<V1NetworkPolicy>;
  /** A fresh client-node informer over the cluster's Nodes (their addresses). */
  createNodeInformer(): InformerSource<V1Node>;
}

/** The informer's events, lifecycle and keyed cache, as the wrapper uses them. */
function sourceOf<T extends KubernetesObject>(informer: Informer<T> & ObjectCache<T>): InformerSource<T> {
  return {
    on: informer.on.bind(informer),
    start: () => informer.start(),
    stop: () => informer.stop(),
    list: () => informer.list(),
    get: (name, namespace) => informer.get(name, namespace),
  };
}

/**
 * Loads the kubeconfig (the in-cluster service account when running in a pod, else `KUBECONFIG` or
 * `~/.kube/config`, or the given file) and connects to one namespace; the API's server-side applies
 * are owned by `fieldManager` (persistent; see {@link KubeApiTarget}).
 */
export function connectKube(options: KubeApiTarget & { kubeconfigPath?: string }): KubeConnection {
  const kubeConfig = new KubeConfig();
  if (options.kubeconfigPath) kubeConfig.loadFromFile(options.kubeconfigPath);
  else kubeConfig.loadFromDefault();
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const networking = kubeConfig.makeApiClient(NetworkingV1Api);
  const { namespace } = options;
  return {
    api: createKubeApi(
      { objects: KubernetesObjectApi.makeApiClient(kubeConfig), core, networking },
      { namespace, fieldManager: options.fieldManager },
    ),
    createPodInformer: (labelSelector) => {
      const list = () => core.listNamespacedPod({ namespace, labelSelector });
      const informer = makeInformer<V1Pod>(
        kubeConfig,
        `/api/v1/namespaces/${namespace}/pods`,
        list,
        labelSelector,
      );
      return sourceOf(informer);
    },
    createNetworkPolicyInformer: (labelSelector) => {
      const list = () => networking.listNamespacedNetworkPolicy({ namespace, labelSelector });
      const informer = makeInformer<V1NetworkPolicy>(
        kubeConfig,
        `/apis/networking.k8s.io/v1/namespaces/${namespace}/networkpolicies`,
        list,
        labelSelector,
      );
      return sourceOf(informer);
    },
    createNodeInformer: () => {
      const informer = makeInformer<V1Node>(kubeConfig, '/api/v1/nodes', () => core.listNode());
      return sourceOf(informer);
    },
  };
}
