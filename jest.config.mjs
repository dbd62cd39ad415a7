// Jest runs in native ESM mode (node --experimental-vm-modules, set by scripts/dev.mjs) so ESM-only
// packages such as @kubernetes/client-node v2 load as they are; @swc/jest strips types and keeps ESM.
const swc = [
  '@swc/jest',
  {
    jsc: { parser: { syntax: 'typescript' }, target: 'es2023' },
    module: { type: 'es6' },
    sourceMaps: 'inline',
  },
];

/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': swc },
  testMatch: ['<rootDir>/{apps,libs,tools,e2e}/**/*.spec.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '/.tools/', '/.data/'],
  reporters: ['default', '<rootDir>/jest/summary-reporter.cjs'],
  testTimeout: 60_000,
  maxWorkers: 1,
  // A leaked handle must not hang CI for its whole time budget; each suite still closes what it opens.
  forceExit: true,
};
