import { describe, expect, it } from '@jest/globals';
import { ImageReferenceSchema } from './image-reference.schema';

describe('ImageReferenceSchema', () => {
  it.each([
    'example-app',
    'localhost/example-app:latest',
    'localhost:5000/example-app:1.0',
    'registry.example.com/team/app:v1.2.3-rc.1',
    'docker.io/library/node:24-slim',
    `ghcr.io/org/app@sha256:${'0123456789abcdef'.repeat(4)}`,
    `ghcr.io/org/app:1.0@sha256:${'0123456789abcdef'.repeat(4)}`,
    'my-registry:5000/a__b/c.d-e',
  ])('accepts %s', (ref) => {
    expect(ImageReferenceSchema.safeParse(ref).success).toBe(true);
  });
  it.each([
    '',
    'Example/App',
    'app:',
    'app:-bad',
    'app@sha256:short',
    'https://registry.example.com/app',
    'registry.example.com/',
    'a b',
    'my_registry:5000/app',
    `app:${'t'.repeat(129)}`,
    `x/${'a'.repeat(512)}`,
    'oci-archive:app.tar',
    'oci-archive:/srv/app.tar',
    'oci:layout',
    'docker-archive:image.tar',
    'dir:rootfs',
    'containers-storage:app',
    'docker://docker.io/library/node:24',
    'docker:24',
  ])('rejects %j', (ref) => {
    expect(ImageReferenceSchema.safeParse(ref).success).toBe(false);
  });
});
