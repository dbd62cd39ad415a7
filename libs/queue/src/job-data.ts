import { formatZodIssues, isSecretFieldName, type QueueDefinition } from '@sandbox/protocol';
import type { FieldIssue } from '@sandbox/protocol';
import type { z } from 'zod';
import { JobDataError } from './errors';

/** The schema of one job name, or undefined for a name the queue does not have. */
export function jobSchema(definition: QueueDefinition, name: string): z.ZodType | undefined {
  return Object.hasOwn(definition.jobs, name) ? definition.jobs[name] : undefined;
}

/** Dotted paths of every key, at any depth, that is a secret field name. */
export function findSecretKeyPaths(value: unknown): string[] {
  const found: string[] = [];
  const seen = new WeakSet<object>();
  const visit = (node: unknown, path: string): void => {
    if (node === null || typeof node !== 'object' || seen.has(node)) return;
    seen.add(node);
    const entries = Array.isArray(node)
      ? node.map((item, index) => [String(index), item])
      : Object.entries(node);
    for (const [key, inner] of entries) {
      const innerPath = path ? `${path}.${key}` : String(key);
      if (!Array.isArray(node) && isSecretFieldName(String(key))) found.push(innerPath);
      visit(inner, innerPath);
    }
  };
  visit(value, '');
  return found;
}

/**
 * What a producer stores for a job: the schema's output for `data`. Refuses an unknown job name,
 * any key named like a secret (before and after parsing), and data that fails the schema.
 */
export function parseJobData(definition: QueueDefinition, name: string, data: unknown): unknown {
  const refuse = (issues: FieldIssue[]): never => {
    throw new JobDataError(definition.name, name, issues);
  };
  const schema = jobSchema(definition, name);
  if (!schema)
    refuse([{ path: '(job name)', message: `queue ${definition.name} has no job named this way` }]);
  const secretIssues = (value: unknown): FieldIssue[] =>
    findSecretKeyPaths(value).map((path) => ({
      path,
      message: 'secret fields must never be put in job data',
    }));
  const before = secretIssues(data);
  if (before.length > 0) refuse(before);
  const result = (schema as z.ZodType).safeParse(data);
  if (!result.success) return refuse(formatZodIssues(result.error));
  const after = secretIssues(result.data);
  if (after.length > 0) refuse(after);
  return result.data;
}
