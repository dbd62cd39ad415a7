export {
  startChildProcess,
  type ChildExit,
  type ChildProcessHandle,
  type ChildProcessOptions,
  type OutputStream,
} from './child-process';
