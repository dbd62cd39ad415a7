import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';

// Who may import whom (STYLE.md, "Layout and boundaries"). Test-only libraries (type:testing) are
// allowed from spec and bench files, their fixtures, e2e and dev tools, never from production code.
const production = [
  { sourceTag: 'type:protocol', onlyDependOnLibsWithTags: [], allowedExternalImports: ['zod'] },
  { sourceTag: 'type:infra', onlyDependOnLibsWithTags: ['type:protocol', 'type:infra'] },
  { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:protocol', 'type:infra'] },
  { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:protocol', 'type:infra', 'type:testing'] },
  { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:protocol', 'type:infra', 'type:testing'] },
  { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:protocol', 'type:infra', 'type:testing'] },
];
const inTests = production.map((rule) =>
  rule.sourceTag === 'type:protocol'
    ? { ...rule, allowedExternalImports: [...rule.allowedExternalImports, '@jest/globals'] }
    : { ...rule, onlyDependOnLibsWithTags: [...new Set([...rule.onlyDependOnLibsWithTags, 'type:testing'])] },
);
// Size limits (STYLE.md: files about 200 lines, functions about 40). Counted without blank lines and
// comments. Specs hold many cases and may be longer; their test bodies are not functions to split.
const sourceSize = {
  'max-lines': ['error', { max: 200, skipBlankLines: true, skipComments: true }],
  'max-lines-per-function': ['error', { max: 100, skipBlankLines: true, skipComments: true, IIFEs: true }],
};
const specSize = {
  'max-lines': ['error', { max: 400, skipBlankLines: true, skipComments: true }],
  'max-lines-per-function': 'off',
};
// A library's `testing` entry (`@sandbox/<lib>/testing`) holds what only simulators, tests and benches
// use (signing as a payer, building images for tests): production code never imports it.
const noTestingEntries = [
  'error',
  {
    patterns: [
      {
        group: ['@sandbox/*/testing'],
        message: 'A `testing` entry is for tests, benches, e2e and tools, not production code.',
      },
    ],
  },
];
const boundaries = (depConstraints) => [
  'error',
  { enforceBuildableLibDependency: false, allowCircularSelfDependency: false, depConstraints },
];

export default [
  { ignores: ['**/node_modules', '**/dist', '.tools', '.data', '.nx', 'coverage'] },
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  prettier,
  {
    files: ['**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': boundaries(production),
      // Configuration is read once, through each project's zod schema in config.ts.
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'Read the environment only in config.ts (loadConfig).',
        },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-imports': noTestingEntries,
      ...sourceSize,
    },
  },
  { files: ['**/*.spec.ts'], rules: specSize },
  {
    // Fixtures (`__fixtures__/`, `test-support/`) and an app's `bench/` folder are test code too: only
    // specs and benches import them.
    files: [
      '**/*.spec.ts',
      '**/*.bench.ts',
      'apps/*/bench/**/*.ts',
      '**/__fixtures__/**/*.ts',
      '**/test-support/**/*.ts',
      'e2e/**/*.ts',
      'libs/testing/**/*.ts',
    ],
    rules: { '@nx/enforce-module-boundaries': boundaries(inTests), 'no-restricted-imports': 'off' },
  },
  // The simulators and dev tools (type:tool) play the other side of production: a payer, a test host.
  { files: ['tools/**/*.ts'], rules: { 'no-restricted-imports': 'off' } },
  {
    files: ['**/config.ts', '**/*.spec.ts', 'e2e/**/*.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
];
