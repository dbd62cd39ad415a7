/**
 * A write through the fence was refused: the writer's lease token is no longer the current holding
 * (the lease expired, was taken over, or a higher token already wrote). The writer must stop acting;
 * nothing of the refused write was applied.
 */
export class StaleLeaseError extends Error {
  override readonly name = 'StaleLeaseError';
  /** The writer's token. */
  readonly token: number;
  /** The current holder's token, if the lease is held. */
  readonly currentToken: number | undefined;

  constructor(lease: string, token: number, current: string) {
    const currentToken = current === '' ? undefined : Number(current.split(' ', 1)[0]);
    super(
      `lease ${lease}: token ${token} is stale (${currentToken === undefined ? 'lease free' : `held with token ${currentToken}`})`,
    );
    this.token = token;
    this.currentToken = currentToken;
  }
}

/** A write needs the lease, but this process does not hold it (standby or stopped). */
export class NotLeaseHolderError extends Error {
  override readonly name = 'NotLeaseHolderError';
  constructor(lease: string) {
    super(`lease ${lease}: this process is not the holder`);
  }
}

/** The lease's timings are inconsistent (the renew deadline must leave time before the TTL ends). */
export class LeaseConfigError extends Error {
  override readonly name = 'LeaseConfigError';
}
