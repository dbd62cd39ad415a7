import type { ServiceDefinition } from '../config';

// Where each service answers in the embedded stack (`npm start`). Their routes are the contracts of
// `@sandbox/protocol`, which the services serve and publish as OpenAPI documents.

export const instanceManagerService: ServiceDefinition = {
  name: 'instance-manager',
  defaultUrl: 'http://127.0.0.1:7101',
};
export const adapterService: ServiceDefinition = { name: 'adapter', defaultUrl: 'http://127.0.0.1:7102' };
export const drainControllerService: ServiceDefinition = {
  name: 'drain-controller',
  defaultUrl: 'http://127.0.0.1:7103',
};
export const redemptionHandoffService: ServiceDefinition = {
  name: 'redemption-handoff',
  defaultUrl: 'http://127.0.0.1:7104',
};
export const verifierService: ServiceDefinition = { name: 'verifier', defaultUrl: 'http://127.0.0.1:7105' };
