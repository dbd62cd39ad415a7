export {
  describeExit,
  startChildProcess,
  type ChildExit,
  type ChildProcessHandle,
  type ChildProcessOptions,
  type OutputStream,
} from './child-process';
export { answers200, waitUntilReady, type WaitUntilReadyOptions } from './readiness';
