import type { AppResource, AppSpec, InstanceResource } from '@sandbox/protocol';
import type { Column, Tone } from '../output/printer';
import { age, short } from '../output/format-values';

/** Instances an app keeps ready when idle: the warm pool, or the minimum of reusable replicas. */
export function declaredInstances(spec: AppSpec): number {
  return spec.instances.kind === 'single-session' ? spec.instances.warmPool : spec.instances.minReplicas;
}

const stateTone = (state: string): Tone | undefined =>
  (
    ({
      ready: 'good',
      active: 'good',
      taken: 'good',
      starting: 'warn',
      withdrawing: 'warn',
      deleting: 'warn',
      gone: 'dim',
    }) as Record<string, Tone>
  )[state];

/** Columns of `apps list` and `apps get`. */
export function appColumns(now: number): Column<AppResource>[] {
  return [
    { header: 'NAME', cell: (app) => app.name },
    { header: 'STATUS', cell: (app) => app.status, tone: (app) => stateTone(app.status) },
    { header: 'KIND', cell: (app) => app.spec.instances.kind },
    {
      header: 'READY',
      cell: (app) => `${app.instances.ready}/${declaredInstances(app.spec)}`,
      tone: (app) => (app.instances.ready >= declaredInstances(app.spec) ? undefined : 'warn'),
    },
    { header: 'STARTING', cell: (app) => String(app.instances.starting) },
    { header: 'TAKEN', cell: (app) => String(app.instances.taken) },
    { header: 'WITHDRAWING', cell: (app) => String(app.instances.withdrawing), wide: true },
    { header: 'MODE', cell: (app) => app.spec.mode, wide: true },
    { header: 'IMAGE', cell: (app) => app.spec.image, wide: true },
    { header: 'TEMPLATE', cell: (app) => app.templateHash, wide: true },
    { header: 'UPDATED', cell: (app) => age(app.updatedAt, now), wide: true },
    { header: 'AGE', cell: (app) => age(app.createdAt, now) },
    {
      header: 'NODE-REFUSAL',
      cell: (app) => {
        const latest = app.registrationRefusals?.[0];
        return latest ? `${latest.status}: ${latest.reason} (${age(latest.at, now)} ago)` : '-';
      },
      tone: (app) => (app.registrationRefusals?.length ? 'bad' : undefined),
      wide: true,
    },
  ];
}

/** Columns of `instances list`. */
export function instanceColumns(now: number): Column<InstanceResource>[] {
  return [
    { header: 'INSTANCE', cell: (instance) => instance.instanceId },
    { header: 'APP', cell: (instance) => instance.app },
    { header: 'STATE', cell: (instance) => instance.state, tone: (instance) => stateTone(instance.state) },
    { header: 'SESSIONS', cell: (instance) => `${instance.sessions}/${instance.capacity}` },
    { header: 'URL', cell: (instance) => instance.url ?? '-' },
    { header: 'KIND', cell: (instance) => instance.kind, wide: true },
    { header: 'TEMPLATE', cell: (instance) => short(instance.templateHash, 16), wide: true },
    { header: 'READY-FOR', cell: (instance) => age(instance.readyAt, now), wide: true },
    { header: 'OUTCOME', cell: (instance) => instance.outcome ?? '-', wide: true },
    { header: 'REASON', cell: (instance) => instance.reason ?? '-', wide: true },
    { header: 'AGE', cell: (instance) => age(instance.createdAt, now) },
  ];
}
