import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { directoryAssets, EVAL_RESPONDER, EXAMPLE_APP, type RootfsFile } from '@sandbox/sandbox-local';
import { secp256k1BindingAssets } from './native-assets';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** What an image needs to start outside a cluster (the start-up check gives it exactly this). */
export interface StartNeeds {
  /** A durable Redis in `REDIS_URL` (services refuse one without AOF fsync per write). */
  redis: boolean;
  /** Environment variables naming a secret file (the check writes a canary file for each). */
  secretFiles: readonly string[];
  /** Plain settings a start needs (placeholders for peers the check does not run). */
  env: Readonly<Record<string, string>>;
  /** Arguments after the bundle, given the port `/healthz` answers on (for command-line tools). */
  args?: (healthPort: number) => string[];
  /** How the port is set: `PORT` in the environment (services) or by {@link StartNeeds.args}. */
  portFrom: 'env' | 'args';
  /** Further paths that must answer 200 once started (what the image's assets serve). */
  paths?: readonly string[];
}

/** One image `npm run images` builds. */
export interface CatalogImage {
  /** Absolute path of the entry file, bundled with esbuild. */
  entryFile: string;
  /** Port the image listens on by default (its `PORT`); `/healthz` answers there. */
  port: number;
  /** Static files the bundle reads at run time. */
  assets?: () => Promise<RootfsFile[]>;
  start: StartNeeds;
}

const entry = (folder: 'apps' | 'tools', name: string) => join(ROOT, folder, name, 'src', 'main.ts');

/** Secret files every service-kit service reads: its management API's two bearer tokens. */
const API_TOKEN_FILES = ['ADMIN_TOKEN_FILE', 'READ_TOKEN_FILE'];

/** A service built on service-kit: Redis, `PORT`, its API tokens and the secret files its config names. */
function service(name: string, port: number, ownSecretFiles: string[] = [], env = {}): CatalogImage {
  const secretFiles = [...API_TOKEN_FILES, ...ownSecretFiles];
  return { entryFile: entry('apps', name), port, start: { redis: true, secretFiles, env, portFrom: 'env' } };
}

/**
 * bull-board's API resolves its UI with `require.resolve('@bull-board/ui/package.json')` from the
 * bundle (/app/main.mjs), so the UI goes where that lookup lands: /app/node_modules/@bull-board/ui.
 */
async function bullBoardUi(): Promise<RootfsFile[]> {
  const ui = join(ROOT, 'node_modules', '@bull-board', 'ui');
  const target = '/app/node_modules/@bull-board/ui';
  return [
    { path: `${target}/package.json`, mode: 0o644, source: join(ui, 'package.json') },
    ...(await directoryAssets(join(ui, 'dist'), `${target}/dist`)),
  ];
}

/**
 * The repository's images by name (tag `localhost/sandbox-<name>:<content hash>`). A new service is
 * one entry here; deploy/ must then name its image (a test compares the two).
 */
export const IMAGE_CATALOG: Readonly<Record<string, CatalogImage>> = Object.freeze({
  [EXAMPLE_APP.name]: {
    entryFile: EXAMPLE_APP.entryFile,
    port: EXAMPLE_APP.port,
    start: { redis: false, secretFiles: [], env: {}, portFrom: 'env' },
  },
  // The app the verifier measures: an ordinary sandboxed app, run by the instance-manager.
  [EVAL_RESPONDER.name]: {
    entryFile: EVAL_RESPONDER.entryFile,
    port: EVAL_RESPONDER.port,
    start: { redis: false, secretFiles: [], env: {}, portFrom: 'env' },
  },
  'instance-manager': service('instance-manager', 7101, [], { DRIVER: 'kubernetes' }),
  verifier: service('verifier', 7105, ['SIGNER_SECRET_FILE', 'SIGNING_KEY_FILE'], {
    NODE_URL: 'http://127.0.0.1:9',
    SIGNER_URL: 'http://127.0.0.1:9',
  }),
  adapter: service('adapter', 7102, ['BOOTSTRAP_SECRET_FILE'], { NODE_URL: 'http://127.0.0.1:9' }),
  'redemption-handoff': {
    ...service('redemption-handoff', 7104, ['INTAKE_SECRET_FILE', 'REDEEMER_SECRET_FILE'], {
      REDEEMER_URL: 'http://127.0.0.1:9',
    }),
    assets: secp256k1BindingAssets,
  },
  'drain-controller': service('drain-controller', 7103, [], { ORCHESTRATOR_DRIVER: 'kubernetes' }),
  dashboard: (() => {
    const dashboard = service('dashboard', 7100);
    // The board's page and one of its bundled UI files, served from the image's assets.
    const paths = ['/queues', '/queues/static/favicon.ico'];
    return { ...dashboard, assets: bullBoardUi, start: { ...dashboard.start, paths } };
  })(),
  'node-sim': {
    entryFile: entry('tools', 'node-sim'),
    port: 8936,
    start: {
      redis: false,
      secretFiles: [],
      env: {},
      portFrom: 'args',
      // Node's metrics listener (loopback only, as Node's own) answers /healthz; the public one takes the next port.
      args: (port) => [
        `--metrics-listen=127.0.0.1:${port}`,
        `--listen=0.0.0.0:${port + 1}`,
        '--generate-bootstrap-secret',
        '--bootstrap-secret-file=/tmp/node-sim/bootstrap',
      ],
    },
  },
  'redeemer-sim': {
    entryFile: entry('tools', 'redeemer-sim'),
    port: 7106,
    assets: secp256k1BindingAssets,
    start: {
      redis: false,
      secretFiles: ['REDEEMER_SECRET_FILE'],
      env: { SIM_DB_PATH: '/tmp/redeemer-sim/redeemer.sqlite' },
      portFrom: 'env',
    },
  },
});

/** The names of every image, in catalog order. */
export const IMAGE_NAMES: readonly string[] = Object.freeze(Object.keys(IMAGE_CATALOG));
