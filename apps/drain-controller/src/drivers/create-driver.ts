import { AppsV1Api, KubeConfig } from '@kubernetes/client-node';
import type { DrainConfig } from '../config';
import { createCommandDriver } from './command-driver';
import { createKubernetesDriver } from './kubernetes-driver';
import type { OrchestratorDriver } from './orchestrator-driver';

/** The orchestrator driver the configuration names. */
export function createDriver(config: DrainConfig, baseEnv: Record<string, string>): OrchestratorDriver {
  if (config.ORCHESTRATOR_DRIVER === 'kubernetes') {
    const kubeConfig = new KubeConfig();
    if (config.KUBECONFIG_PATH === undefined) kubeConfig.loadFromDefault();
    else kubeConfig.loadFromFile(config.KUBECONFIG_PATH);
    return createKubernetesDriver({
      apps: kubeConfig.makeApiClient(AppsV1Api),
      namespace: config.KUBE_NAMESPACE,
      deployment: config.KUBE_DEPLOYMENT,
      container: config.KUBE_CONTAINER,
    });
  }
  if (config.REPLACE_COMMAND === undefined)
    throw new Error('REPLACE_COMMAND is required by the command driver');
  return createCommandDriver({
    command: config.REPLACE_COMMAND,
    timeoutMs: config.REPLACE_COMMAND_TIMEOUT_MS,
    readyUrl: config.NODE_READY_URL,
    baseEnv,
  });
}
