// `npm run images -- [--out DIR] [--check] [name...]` (every image when none is named).
// Without --out: builds each image into podman (what the local driver runs). With --out: writes
// DIR/sandbox-<name>.tar (OCI + docker archive) and DIR/kustomization.yaml pinning deploy/'s images
// to these tags. --check starts each image under gVisor and times its first `/healthz` (root only).
// Prints one line per image: `name: tag size=<MB> [startup=<ms>]`.
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { IMAGE_CATALOG, IMAGE_NAMES } from './catalog';
import { buildImages } from './build-images';

const logger = pino({ name: 'images' }, pino.destination(2));

const USAGE =
  'usage: npm run images -- [--out DIR] [--overlay k3d|production|platform] [--check] [name...]\n';

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      out: { type: 'string' },
      overlay: { type: 'string', default: 'k3d' },
      check: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const selected = positionals.length > 0 ? positionals : [...IMAGE_NAMES];
  const unknown = selected.filter((name) => !IMAGE_CATALOG[name]);
  if (unknown.length > 0 || !['k3d', 'production', 'platform'].includes(values.overlay)) {
    logger.error({ unknown, known: IMAGE_NAMES, overlay: values.overlay }, 'unknown image or overlay');
    process.stderr.write(USAGE);
    return 2;
  }
  const results = await buildImages({
    names: selected,
    outDir: values.out,
    overlay: values.overlay as 'k3d' | 'production' | 'platform',
    check: values.check,
    logger,
  });
  for (const result of results) {
    const size = `size=${(result.sizeBytes / 1_000_000).toFixed(1)}MB`;
    const startup = result.startupMs === undefined ? '' : ` startup=${result.startupMs}ms`;
    process.stdout.write(`${result.name}: ${result.tag} ${size}${startup}\n`);
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    logger.error({ err: error }, 'image build failed');
    process.exit(1);
  },
);
