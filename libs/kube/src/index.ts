export * from './labels';
export * from './network-ranges';
export * from './pod.builder';
export * from './network-policy.builder';
export * from './pod-status';
export * from './resilient-informer';
export * from './kube-api';
export * from './kube-connect';
