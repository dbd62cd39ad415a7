import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { listSchemaKeys } from './schema-keys';

describe('listSchemaKeys', () => {
  it('finds keys at any depth through wrappers', () => {
    const shared = z.strictObject({ usd: z.string() });
    const schema = z
      .strictObject({
        a: z.string(),
        price: shared.optional(),
        items: z.array(z.object({ b: z.number().default(1) })),
        map: z.record(z.string(), z.strictObject({ c: z.boolean() })).default({}),
        either: z.discriminatedUnion('k', [
          z.object({ k: z.literal('x'), d: z.string() }),
          z.object({ k: z.literal('y') }),
        ]),
        piped: z
          .string()
          .transform((s) => s.length)
          .pipe(z.number()),
        again: shared,
      })
      .refine(() => true);
    const keys = listSchemaKeys(schema).map((entry) =>
      entry.parentPath ? `${entry.parentPath}.${entry.key}` : entry.key,
    );
    expect(keys.sort()).toEqual(
      [
        'a',
        'price',
        'price.usd',
        'items',
        'items.*.b',
        'map',
        'map.*.c',
        'either',
        'either.k',
        'either.d',
        'either.k',
        'piped',
        'again',
        'again.usd',
      ].sort(),
    );
  });

  it('terminates on recursive schemas', () => {
    interface Node {
      name: string;
      children: Node[];
    }
    const NodeSchema: z.ZodType<Node> = z.lazy(() =>
      z.object({ name: z.string(), children: z.array(NodeSchema) }),
    );
    const keys = listSchemaKeys(z.object({ root: NodeSchema })).map((entry) => entry.key);
    expect(keys).toEqual(expect.arrayContaining(['root', 'name', 'children']));
  });
});
