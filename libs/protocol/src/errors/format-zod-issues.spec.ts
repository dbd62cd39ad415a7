import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { formatZodIssues, joinFieldIssues, summarizeZodIssues } from './format-zod-issues';

function issuesOf(schema: z.ZodType, value: unknown) {
  const result = schema.safeParse(value);
  if (result.success) throw new Error('expected a parse failure');
  return formatZodIssues(result.error);
}

describe('formatZodIssues', () => {
  const schema = z.strictObject({
    instances: z.strictObject({ capacity: z.int().min(1) }),
    tickets: z.array(z.strictObject({ sig: z.string().regex(/^0x[0-9a-f]+$/, { message: 'must be hex' }) })),
    env: z.record(z.string().regex(/^[A-Z]+$/, { message: 'must be upper case' }), z.string()).optional(),
    kind: z
      .discriminatedUnion('type', [
        z.strictObject({ type: z.literal('a') }),
        z.strictObject({ type: z.literal('b') }),
      ])
      .optional(),
  });

  it('gives dotted paths with numeric indexes', () => {
    const issues = issuesOf(schema, {
      instances: { capacity: 0 },
      tickets: [{ sig: '0x00' }, { sig: '0x11' }, { sig: '0x22' }, { sig: 'not-hex' }],
    });
    expect(issues).toEqual([
      { path: 'instances.capacity', message: expect.stringContaining('>=1') },
      { path: 'tickets.3.sig', message: 'must be hex' },
    ]);
  });

  it('reports the whole value as (root)', () => {
    expect(issuesOf(schema, 'text')).toEqual([
      { path: '(root)', message: expect.stringContaining('expected object') },
    ]);
  });

  it('never echoes input values, nor keys that look like tokens', () => {
    const canary = 'c4a7e1f09b3d5e2a8f6c1d0b9e7a3f5c';
    const issues = issuesOf(schema, {
      instances: { capacity: canary },
      tickets: [{ sig: canary, [canary]: canary }],
      env: { [`lower ${canary}`]: canary },
      kind: { type: canary },
      [`0x${canary}`]: 1,
      recipientRand: canary,
    });
    const text = JSON.stringify(issues);
    expect(text).not.toContain(canary.slice(0, 12));
    expect(issues.map((issue) => issue.path)).toEqual(
      expect.arrayContaining(['instances.capacity', 'tickets.0.sig', 'env.<key>', 'kind.type', '(root)']),
    );
    expect(issues).toContainEqual({ path: 'tickets.0', message: 'unrecognized keys (1)' });
    expect(issues).toContainEqual({ path: '(root)', message: 'unrecognized keys (2)' });
    expect(issues).toContainEqual({ path: 'env.<key>', message: 'invalid key: must be upper case' });
    expect(issues).toContainEqual({ path: 'kind.type', message: 'must be one of "a", "b"' });
  });

  it('names unrecognized keys that look like field names', () => {
    expect(issuesOf(schema, { instances: { capacity: 1, extra: true }, tickets: [] })).toEqual([
      { path: 'instances', message: 'unrecognized key: "extra"' },
    ]);
  });

  it('accepts a bare issue list and summarizes on one line', () => {
    const result = schema.safeParse({ instances: {}, tickets: [{}] });
    expect(result.success).toBe(false);
    const issues = result.error?.issues ?? [];
    expect(formatZodIssues(issues).map((issue) => issue.path)).toEqual([
      'instances.capacity',
      'tickets.0.sig',
    ]);
    expect(summarizeZodIssues(issues, 1)).toBe(
      'instances.capacity: Invalid input: expected number, received undefined; and 1 more',
    );
  });
});

describe('joinFieldIssues', () => {
  it('lists the first ten and counts the rest', () => {
    const issues = Array.from({ length: 12 }, (_, index) => ({ path: `p${index}`, message: 'bad' }));
    const text = joinFieldIssues(issues);
    expect(text).toContain('p9: bad');
    expect(text).not.toContain('p10');
    expect(text).toMatch(/and 2 more$/);
  });
});
