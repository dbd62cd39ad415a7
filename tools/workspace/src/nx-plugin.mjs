// Infers the `test`, `typecheck` and `bench` targets of every project with a project.json (its `lint`
// target comes from @nx/eslint/plugin). Each runs through scripts/dev.mjs, as the npm scripts do, so it
// gets Node 24 and up-to-date packages whatever Node runs Nx. Plain JavaScript: Nx loads it as it is.
import { dirname } from 'node:path';

const DEV = 'node scripts/dev.mjs';

/**
 * @param {string} root the project's folder, relative to the workspace
 * @returns {Record<string, import('@nx/devkit').TargetConfiguration>}
 */
export function inferredTargets(root) {
  return {
    test: {
      command: `${DEV} test --passWithNoTests ${root}/`,
      cache: true,
      // Jest specs share Redis, ports and host objects with the other projects' specs: one at a time.
      parallelism: false,
      inputs: [
        'default',
        '^production',
        '{workspaceRoot}/jest.config.mjs',
        '{workspaceRoot}/jest/**/*',
        { externalDependencies: ['jest'] },
      ],
      metadata: { description: `Jest specs under ${root}` },
    },
    typecheck: {
      command: `${DEV} typecheck ${root}`,
      cache: true,
      inputs: ['default', '^production', { externalDependencies: ['typescript'] }],
      metadata: { description: `tsc --noEmit over ${root} (and what it imports)` },
    },
    bench: {
      command: `${DEV} bench ${root}/`,
      // Measurements: never replayed from the cache, never run beside another task.
      cache: false,
      parallelism: false,
      metadata: { description: `benchmarks (*.bench.ts) under ${root}` },
    },
  };
}

/** @type {import('@nx/devkit').CreateNodes} */
export const createNodes = [
  '**/project.json',
  (files) =>
    files.map((file) => {
      const root = dirname(file);
      return [file, { projects: { [root]: { targets: inferredTargets(root) } } }];
    }),
];
