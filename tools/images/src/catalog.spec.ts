import { describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { IMAGE_CATALOG } from './catalog';

describe('IMAGE_CATALOG', () => {
  it('points every image at an entry file that exists', () => {
    expect(Object.keys(IMAGE_CATALOG)).toEqual(expect.arrayContaining(['example-app', 'eval-responder']));
    for (const app of Object.values(IMAGE_CATALOG)) expect(existsSync(app.entryFile)).toBe(true);
  });
});
