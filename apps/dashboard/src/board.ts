import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { BOARD_PATH, redactSecrets } from '@sandbox/protocol';
import type { Queue } from 'bullmq';
import type { Router } from 'express';

/** Where the board is mounted: the path of its contract. */
export { BOARD_PATH };

export interface BoardOptions {
  queues: readonly Queue[];
  writable: boolean;
}

/**
 * The bull-board UI and API over our queues. Job data and results go through the protocol's secret
 * redaction before they are shown, whatever a producer put there.
 */
export function createBoardRouter({ queues, writable }: BoardOptions): Router {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(BOARD_PATH);
  const adapters = queues.map((queue) => {
    const adapter = new BullMQAdapter(queue, { readOnlyMode: !writable, allowRetries: writable });
    adapter.setFormatter('data', redactSecrets);
    adapter.setFormatter('returnValue', redactSecrets);
    adapter.setFormatter('progress', redactSecrets);
    return adapter;
  });
  createBullBoard({
    queues: adapters,
    serverAdapter,
    options: {
      uiConfig: { boardTitle: writable ? 'Sandbox Runtime queues' : 'Sandbox Runtime queues (read-only)' },
    },
  });
  return serverAdapter.getRouter() as Router;
}
