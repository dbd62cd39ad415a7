import { describe, expect, it } from '@jest/globals';
import { Counter, register as globalRegistry } from 'prom-client';
import { createMetrics } from './metrics';

describe('createMetrics', () => {
  it('uses its own registry with default metrics and the svc label, not the global one', async () => {
    const before = (await globalRegistry.getMetricsAsJSON()).length;
    const metrics = createMetrics({ svc: 'adapter' });
    const text = await metrics.render();
    expect(text).toContain('process_cpu_user_seconds_total{svc="adapter"}');
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
    expect((await globalRegistry.getMetricsAsJSON()).length).toBe(before);
  });

  it('lets two instances coexist and services add their own series', async () => {
    const first = createMetrics({ svc: 'one', collectDefaults: false });
    const second = createMetrics({ svc: 'two', collectDefaults: false });
    const jobs = new Counter({ name: 'jobs_total', help: 'jobs', registers: [first.registry] });
    jobs.inc(3);
    first.httpRequestDuration.observe({ method: 'GET', route: '/x', status_code: '200' }, 0.02);
    expect(await first.render()).toContain('jobs_total{svc="one"} 3');
    expect(await first.render()).toContain(
      'http_request_duration_seconds_bucket{le="0.025",svc="one",method="GET",route="/x",status_code="200"} 1',
    );
    expect(await second.render()).not.toContain('jobs_total');
  });
});
