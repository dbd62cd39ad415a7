export {
  reportDigest,
  reportSigningKey,
  signReport,
  verifyReport,
  type ReportCheck,
  type ReportSigningKey,
} from './report-signing';
export {
  checkShares,
  findShares,
  Keystream,
  KeystreamChecker,
  type FindSharesOptions,
  type ShareCheck,
  type StreamPurpose,
} from './challenges';
