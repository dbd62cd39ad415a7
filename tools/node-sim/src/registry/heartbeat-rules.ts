import { HeartbeatRuleMessage, isHttpUrl, isRouteId } from '@sandbox/protocol';
import type { HeartbeatFields } from './heartbeat-fields';

/**
 * Node's `validateHeartbeat`, in Node's order: capacity 0 becomes 1 and the price unit and currency
 * are trimmed and lower-cased in place; the first broken rule's message is returned (answered 400).
 */
export function validateHeartbeat(fields: HeartbeatFields): string | undefined {
  if (fields.capacity === 0) fields.capacity = 1;
  fields.priceInfo.unit = fields.priceInfo.unit.trim().toLowerCase();
  fields.priceInfo.currency = fields.priceInfo.currency.trim().toLowerCase();
  if (fields.runnerId !== '' && !isRouteId(fields.runnerId)) return HeartbeatRuleMessage.RunnerId;
  if (fields.app === '' || fields.capacity < 1 || fields.capacity > 10_000)
    return HeartbeatRuleMessage.AppAndCapacity;
  if (!isHttpUrl(fields.runnerUrl)) return HeartbeatRuleMessage.RunnerUrl;
  if (fields.mode !== '' && fields.mode !== 'persistent' && fields.mode !== 'single-shot') {
    return HeartbeatRuleMessage.Mode;
  }
  if (fields.priceInfo.unit === '720p') return HeartbeatRuleMessage.Unit720p;
  if (fields.priceInfo.unit !== '' && fields.priceInfo.unit !== 'hour' && fields.priceInfo.unit !== 'fixed') {
    return HeartbeatRuleMessage.Unit;
  }
  return undefined;
}
