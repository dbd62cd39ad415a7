import { describe, expect, it } from '@jest/globals';
import { ManifestError, parseAppManifest } from './app-manifest';

const spec = `  image: localhost/example:1
  port: 8080
  mode: persistent
  healthCheck: { type: http, path: /healthz }
  resources: { cpu: 500m, memory: 256Mi }
  instances: { kind: single-session, warmPool: 2, max: 4 }`;

function problemsOf(text: string): readonly string[] {
  try {
    parseAppManifest(text, 'apps.yaml');
  } catch (error) {
    if (error instanceof ManifestError) return error.problems;
    throw error;
  }
  throw new Error('expected a ManifestError');
}

describe('parseAppManifest', () => {
  it('reads several YAML documents, keeping the spec as written and its defaulted form', () => {
    const documents = parseAppManifest(
      `kind: App\nname: one\nspec:\n${spec}\n---\nkind: App\nname: two\nspec:\n${spec}\n`,
      'apps.yaml',
    );
    expect(documents.map((document) => [document.name, document.origin])).toEqual([
      ['one', 'apps.yaml:1'],
      ['two', 'apps.yaml:11'],
    ]);
    expect(documents[0]?.spec).not.toHaveProperty('egress');
    expect(documents[0]?.parsed.egress).toBe('none');
  });

  it('reads a JSON array of documents', () => {
    const doc = (name: string) => ({
      kind: 'App',
      name,
      spec: {
        image: 'localhost/example:1',
        port: 8080,
        mode: 'persistent',
        healthCheck: { type: 'tcp' },
        resources: { cpu: '1', memory: '64Mi' },
        instances: { kind: 'reusable', capacity: 4, minReplicas: 1, maxReplicas: 2 },
      },
    });
    const documents = parseAppManifest(JSON.stringify([doc('a'), doc('b')], null, 2), 'apps.json');
    expect(documents.map((document) => document.name)).toEqual(['a', 'b']);
    expect(documents[1]?.origin).toMatch(/^apps\.json:\d+$/);
  });

  it('names the line and column of every bad field, in every document', () => {
    const text = `kind: App\nname: one\nspec:\n${spec.replace('port: 8080', 'port: 0')}\n---\nkind: App\nname: Two\nspec:\n${spec.replace('max: 4', 'max: 1').replace('mode: persistent', 'mode: persistent\n  colour: blue')}\n`;
    expect(problemsOf(text)).toEqual([
      'apps.yaml:5:9: spec.port: Too small: expected number to be >=1',
      expect.stringMatching(/^apps\.yaml:12:7: name: must be 1-40 characters/),
      'apps.yaml:20:56: spec.instances.max: must be at least warmPool',
      'apps.yaml:17:3: spec: unrecognized key: "colour"',
    ]);
  });

  it('points a missing field at the object that lacks it', () => {
    expect(problemsOf(`kind: App\nname: one\nspec:\n${spec.replace('  port: 8080\n', '')}\n`)).toEqual([
      expect.stringMatching(/^apps\.yaml:4:3: spec\.port: /),
    ]);
  });

  it('reports YAML syntax errors with their position, duplicates and empty input', () => {
    expect(problemsOf('kind: App\nname: [one\n')[0]).toMatch(/^apps\.yaml:\d+:\d+: /);
    expect(
      problemsOf(`kind: App\nname: one\nspec:\n${spec}\n---\nkind: App\nname: one\nspec:\n${spec}\n`),
    ).toEqual(['apps.yaml:11: name: app "one" appears twice']);
    expect(problemsOf('')).toEqual(['apps.yaml: no documents']);
    expect(problemsOf('name: one\n')).toEqual([
      expect.stringMatching(/^apps\.yaml:1:1: kind: /),
      expect.stringMatching(/^apps\.yaml:1:1: spec: /),
    ]);
  });
});
