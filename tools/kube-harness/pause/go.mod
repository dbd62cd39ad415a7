// The pod sandbox ("pause") program of the harness's local node: the process that holds a pod's
// namespaces while its containers come and go. There is no registry to pull one from, so the harness
// builds this static binary and imports it into containerd as a one-file OCI image.
module sandbox-runtime/kube-harness-pause

go 1.26.0
