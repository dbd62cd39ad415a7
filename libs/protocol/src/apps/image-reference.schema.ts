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
 * An OCI image reference: `[registry[:port]/]path[:tag][@sha256:digest]`, such as
 * `localhost/example-app:1.0` or `registry.example.com:5000/team/app@sha256:…`. Path components are
 * lowercase.
 */
export const ImageReferenceSchema = z
  .string()
  .max(512)
  .regex(imageReference, { message: 'must be an image reference like "registry.example.com/team/app:1.0"' });
export type ImageReference = z.infer<typeof ImageReferenceSchema>;
