import { ADAPTER_COMMANDS_QUEUE } from './adapter-commands.queue';
import { DRAIN_STEPS_QUEUE } from './drain-steps.queue';
import { EVALUATIONS_QUEUE } from './evaluations.queue';
import { INSTANCE_EVENTS_QUEUE } from './instance-events.queue';
import { SESSION_EVENTS_QUEUE } from './session-events.queue';
import { TICKET_DELIVERY_QUEUE } from './ticket-delivery.queue';

export * from './adapter-commands.queue';
export * from './drain-steps.queue';
export * from './evaluations.queue';
export * from './instance-events.queue';
export * from './session-events.queue';
export * from './ticket-delivery.queue';

/** Every queue of the system (the dashboard shows these; tests check their payloads). */
export const ALL_QUEUES = Object.freeze([
  INSTANCE_EVENTS_QUEUE,
  SESSION_EVENTS_QUEUE,
  ADAPTER_COMMANDS_QUEUE,
  DRAIN_STEPS_QUEUE,
  TICKET_DELIVERY_QUEUE,
  EVALUATIONS_QUEUE,
] as const);

/** Names of every queue; persistent, like each name. */
export type QueueName = (typeof ALL_QUEUES)[number]['name'];
