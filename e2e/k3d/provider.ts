// Where the suite's cluster comes from. The checks are the same on every provider; what differs is
// how a cluster is made, how images reach its runtime, how the host reaches a Service, and where the
// control for the gVisor kernel check is read.
import type { Kubectl } from './kubectl';

/** A PersistentVolumeClaim the overlay makes (directly or through a StatefulSet's template). */
export interface VolumeClaim {
  namespace: string;
  name: string;
  storage: string;
  accessModes: string[];
}

/**
 * The internet as `egress: internet` apps see it: `host:port` answers TCP, `resolver` is the public
 * DNS server the instance-manager gives their pods, and `name` resolves through it to `host`.
 */
export interface InternetFacts {
  host: string;
  port: number;
  resolver: string;
  name: string;
}

/** The kernel a process sees: `os.release()` and `/proc/version`. */
export interface KernelFacts {
  release: string;
  version: string;
}

/** One cluster the suite runs against; {@link ClusterProvider.release} deletes everything it made. */
export interface ClusterProvider {
  readonly name: 'k3d' | 'local-node';
  readonly kubectl: Kubectl;
  /** What stands for the internet: an address outside the cluster that answers TCP. */
  readonly internet: InternetFacts;
  /** Loads image archives into the node's container runtime (nothing is ever pulled). */
  importImages(archives: readonly string[]): Promise<void>;
  /** A URL from this host to a Service's port. */
  serviceUrl(namespace: string, service: string, port: number): Promise<string>;
  /** The kernel of a workload outside gVisor on the node: the control of the gVisor check. */
  nodeKernel(): Promise<KernelFacts>;
  /** Makes the claims bindable where the cluster has no volume provisioner of its own. */
  provideVolumes(claims: readonly VolumeClaim[]): Promise<void>;
  /** Stops port-forwards, deletes the cluster and every file it made; safe to call twice. */
  release(): Promise<void>;
}
