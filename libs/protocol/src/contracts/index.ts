export * from './route-contract';
export * from './openapi';
export * from './probes.contract';
export * from './instance-manager.contract';
export * from './adapter.contract';
export * from './drain-controller.contract';
export * from './redemption-handoff.contract';
export * from './verifier.contract';
export * from './dashboard.contract';

import { adapterApi } from './adapter.contract';
import { dashboardApi } from './dashboard.contract';
import { drainControllerApi } from './drain-controller.contract';
import { instanceManagerApi } from './instance-manager.contract';
import { redemptionHandoffApi } from './redemption-handoff.contract';
import { verifierApi } from './verifier.contract';

/** Every service's API contract: each publishes the document generated from it at `/v1/openapi.json`. */
export const ALL_APIS = [
  instanceManagerApi,
  adapterApi,
  drainControllerApi,
  redemptionHandoffApi,
  verifierApi,
  dashboardApi,
] as const;
