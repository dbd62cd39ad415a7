export {
  describeExit,
  startChildProcess,
  type ChildExit,
  type ChildProcessHandle,
  type ChildProcessOptions,
  type OutputStream,
} from './child-process';
export {
  guardContainer,
  guardNetworkNamespace,
  guardProcessGroup,
  killGroupSteps,
  startGuard,
  type Guard,
  type GuardAction,
} from './group-guard';
export { answers200, waitUntilReady, type WaitUntilReadyOptions } from './readiness';
