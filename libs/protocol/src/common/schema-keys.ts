import type { z } from 'zod';

/** One object key found inside a schema, with the dotted path of its parent (`tickets.*`). */
export interface SchemaKey {
  readonly parentPath: string;
  readonly key: string;
  readonly schema: z.ZodType;
}

type Def = { type: string } & Record<string, unknown>;

/** The wrapped schemas of a zod 4 schema: object shape values, array elements, union options, ... */
function children(schema: z.ZodType): Array<{ segment?: string; schema: z.ZodType }> {
  const def = schema._zod.def as unknown as Def;
  switch (def.type) {
    case 'object':
      return Object.entries(def['shape'] as Record<string, z.ZodType>).map(([segment, inner]) => ({
        segment,
        schema: inner,
      }));
    case 'array':
      return [{ segment: '*', schema: def['element'] as z.ZodType }];
    case 'record':
      return [{ segment: '*', schema: def['valueType'] as z.ZodType }];
    case 'union':
      return (def['options'] as z.ZodType[]).map((inner) => ({ schema: inner }));
    case 'intersection':
      return [{ schema: def['left'] as z.ZodType }, { schema: def['right'] as z.ZodType }];
    case 'tuple':
      return (def['items'] as z.ZodType[]).map((inner) => ({ segment: '*', schema: inner }));
    case 'pipe':
      return [{ schema: def['in'] as z.ZodType }, { schema: def['out'] as z.ZodType }];
    case 'lazy':
      return [{ schema: (def['getter'] as () => z.ZodType)() }];
    default:
      return 'innerType' in def ? [{ schema: def['innerType'] as z.ZodType }] : [];
  }
}

/**
 * Every object key at any depth of a schema (through optional, default, array, record, union, pipe and
 * similar wrappers). Tooling uses it to prove that job payloads use no secret field name, and to find
 * which keys hold `secret()`-marked schemas. A schema that contains itself (through `z.lazy`) is not entered again below itself.
 */
export function listSchemaKeys(schema: z.ZodType): SchemaKey[] {
  const found: SchemaKey[] = [];
  const ancestors = new Set<z.ZodType>();
  const visit = (current: z.ZodType, path: string): void => {
    if (ancestors.has(current)) return;
    ancestors.add(current);
    const isObject = current._zod.def.type === 'object';
    for (const { segment, schema: inner } of children(current)) {
      if (isObject && segment !== undefined) found.push({ parentPath: path, key: segment, schema: inner });
      visit(inner, segment === undefined ? path : joinPath(path, segment));
    }
    ancestors.delete(current);
  };
  visit(schema, '');
  return found;
}

function joinPath(path: string, segment: string): string {
  return path === '' ? segment : `${path}.${segment}`;
}
