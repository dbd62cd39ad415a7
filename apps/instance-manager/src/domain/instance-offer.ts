import {
  AppMetadataSchema,
  AppModeSchema,
  GpuDescriptionSchema,
  InstanceKindSchema,
  SessionCapacitySchema,
  UsdPriceSchema,
  VersionSchema,
} from '@sandbox/protocol';
import type { AppSpec, InstanceReady } from '@sandbox/protocol';
import { z } from 'zod';

/**
 * What an instance is advertised with, fixed when it is created (a later spec change replaces the
 * instance rather than changing what it was announced as). Stored in the instance record.
 */
export const InstanceOfferSchema = z.strictObject({
  kind: InstanceKindSchema,
  capacity: SessionCapacitySchema,
  mode: AppModeSchema,
  price: UsdPriceSchema.optional(),
  metadata: AppMetadataSchema,
  gpu: GpuDescriptionSchema.optional(),
  version: VersionSchema.optional(),
});
export type InstanceOffer = z.infer<typeof InstanceOfferSchema>;

/** The offer of a spec: single-session instances always have capacity 1. */
export function offerOf(spec: AppSpec): InstanceOffer {
  const { instances } = spec;
  const offer: InstanceOffer = {
    kind: instances.kind,
    capacity: instances.kind === 'reusable' ? instances.capacity : 1,
    mode: spec.mode,
    metadata: spec.metadata,
  };
  if (spec.price) offer.price = spec.price;
  if (spec.gpu) offer.gpu = spec.gpu;
  if (spec.version) offer.version = spec.version;
  return offer;
}

/** The `instance-ready` payload of a ready instance. */
export function instanceReadyPayload(input: {
  instanceId: string;
  app: string;
  url: string;
  offer: InstanceOffer;
  readyAt: number;
}): InstanceReady {
  return {
    instanceId: input.instanceId,
    app: input.app,
    url: input.url,
    ...input.offer,
    readyAt: new Date(input.readyAt).toISOString(),
  };
}
