// What only tests, benches and e2e use: the example app's image for a test host, an app bundle to run
// as a plain process, the host's sandbox check, and the layout image builder e2e uses for its own
// images (Redis, the SDK client). Lint refuses `@sandbox/*/testing` outside tests, e2e and tools.
export { bundleNodeApp } from './images/node-app-image';
export { ensureExampleAppImage } from './images/repository-apps';
export { canRunSandbox } from './runsc/runtime-choice';
export type { RootfsLayout } from './images/rootfs-layout';
export { exportLayoutImage, type LayoutImage } from './images/layout-image';
export { sharedLibraries } from './images/node-runtime';
