// Versions the k3d suite runs, each pinned: a new one is a reviewed change here, never a download of
// whatever is latest.

/** k3d, from its GitHub release; the checksums are the release's own `checksums.txt` entries. */
export const K3D = {
  version: 'v5.9.0',
  url: (arch: string) => `https://github.com/k3d-io/k3d/releases/download/v5.9.0/k3d-linux-${arch}`,
  sha256: {
    amd64: '06d8f25bc3a971c4eb29e0ff08429b180402db0f4dec838c9eac427e296800a0',
    arm64: '03cde5cf23e6e8e67de5a039ecf26e5b85aca82fba3e5d13dadf904cd218a250',
  } as Readonly<Record<string, string>>,
} as const;

/**
 * The k3s release the node image starts from: the Kubernetes version the kube harness's API server
 * is built at, so what CI proves here and what the k3d cluster runs are one release.
 */
export const K3S_BASE_IMAGE = 'docker.io/rancher/k3s:v1.37.2-k3s1';

/** Name of the k3s-with-gVisor image `deploy/k3s/Dockerfile` builds (tagged by its inputs' hash). */
export const NODE_IMAGE_NAME = 'localhost/sandbox-k3s-gvisor';
