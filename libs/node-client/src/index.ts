export {
  cleanReason,
  failureLabel,
  isNodeRequestError,
  NodeRequestError,
  type NodeFailureKind,
} from './errors';
export { callNode, type NodeCall, type NodeReply } from './http-call';
export {
  createHttpTransport,
  defaultHttpTransport,
  fetchTransport,
  type ClosableHttpTransport,
  type FetchLike,
  type HttpAnswer,
  type HttpExchange,
  type HttpTransport,
  type HttpTransportOptions,
} from './http-transport';
export {
  createO2RSubscriber,
  DEFAULT_O2R_KEEPALIVE_TIMEOUT_MS,
  type O2REndReason,
  type O2RSubscriber,
  type O2RSubscriberEvent,
  type O2RSubscriberOptions,
} from './o2r-subscriber';
export {
  createRunnerClient,
  encodeHeartbeatBody,
  type HeartbeatCall,
  type HeartbeatResult,
  type RunnerCallOptions,
  type RunnerClient,
  type RunnerClientOptions,
  type StopSessionCall,
  type UnregisterCall,
} from './runner-client';
export { readTrickleSegment, type TrickleReadOutcome } from './trickle-read';
