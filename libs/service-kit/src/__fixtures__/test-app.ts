// Builds the kit's HTTP app the way a service does, with an in-memory log, for the HTTP specs.
import type { Express } from 'express';
import { createHealth } from '../health/health';
import { createHttpApp } from '../http/create-http-app';
import { createLogger } from '../logging/logger';
import { createSecretScrubber } from '../logging/secret-scrubber';
import { createMetrics } from '../metrics/metrics';
import { memoryDestination } from './test-doubles';

export function testApp(
  options: { configure?: (app: Express) => void; bodyLimit?: number; includeStacks?: boolean } = {},
) {
  const out = memoryDestination();
  const secrets = createSecretScrubber();
  const logger = createLogger({
    svc: 'test-svc',
    level: 'info',
    destination: out,
    secrets,
    includeStacks: options.includeStacks ?? false,
  });
  const health = createHealth({ logger });
  const metrics = createMetrics({ svc: 'test-svc', collectDefaults: false });
  let generated = 0;
  const app = createHttpApp({
    logger,
    health,
    metrics,
    ...(options.configure === undefined ? {} : { configure: options.configure }),
    ...(options.bodyLimit === undefined ? {} : { bodyLimit: options.bodyLimit }),
    generateRequestId: () => `generated-${++generated}`,
  });
  return { app, out, secrets, logger, health, metrics };
}
