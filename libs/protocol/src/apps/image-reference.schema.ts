import { z } from 'zod';

const port = String.raw`(?::[0-9]{1,5})`;
const label = String.raw`[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?`;
/** A registry host is recognised the way container tools do: it has a dot or a port, or is localhost. */
const registry = String.raw`(?:localhost${port}?|${label}(?:\.${label})+${port}?|${label}${port})`;
const component = String.raw`[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*`;
const tag = String.raw`[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}`;
const digest = String.raw`sha256:[a-f0-9]{64}`;
const imageReference = new RegExp(
  String.raw`^(?:${registry}/)?${component}(?:/${component})*(?::${tag})?(?:@${digest})?$`,
);

/**
 * Transports of containers/image (podman, skopeo, buildah). `name:rest` with one of these names is read
 * as a transport, not as an image and its tag: `oci-archive:app.tar` would run an image from a file in
 * the manager's working folder, whatever the pull policy.
 */
export const IMAGE_TRANSPORTS: readonly string[] = Object.freeze([
  'atomic',
  'containers-storage',
  'dir',
  'docker',
  'docker-archive',
  'docker-daemon',
  'oci',
  'oci-archive',
  'ostree',
  'sif',
  'tarball',
]);

/** True when the reference starts with a transport name and a colon (`oci-archive:…`, `dir:…`). */
export function namesImageTransport(reference: string): boolean {
  const colon = reference.indexOf(':');
  return colon > 0 && IMAGE_TRANSPORTS.includes(reference.slice(0, colon).toLowerCase());
}

/**
 * An OCI image reference in registry style: `[registry[:port]/]path[:tag][@sha256:digest]`, such as
 * `localhost/example-app:1.0` or `registry.example.com:5000/team/app@sha256:…`. Path components are
 * lowercase; transports (`oci-archive:`, `docker://`, `dir:`) are refused.
 */
export const ImageReferenceSchema = z
  .string()
  .max(512)
  .regex(imageReference, { message: 'must be an image reference like "registry.example.com/team/app:1.0"' })
  .refine((reference) => !namesImageTransport(reference), {
    message: 'must be a registry image reference, not a transport such as "oci-archive:"',
  });
export type ImageReference = z.infer<typeof ImageReferenceSchema>;
