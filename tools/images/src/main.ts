// Builds the repository's app images into podman from local files: `node --import tsx
// tools/images/src/main.ts [name...]` (all when none is named). Prints `name: tag` per image.
import { ensureNodeAppImage } from '@sandbox/sandbox-local';
import { pino } from 'pino';
import { IMAGE_CATALOG } from './catalog';

const logger = pino({ name: 'images' }, pino.destination(2));

async function main(names: string[]): Promise<number> {
  const selected = names.length > 0 ? names : Object.keys(IMAGE_CATALOG);
  const unknown = selected.filter((name) => !IMAGE_CATALOG[name]);
  if (unknown.length > 0) {
    logger.error({ unknown, known: Object.keys(IMAGE_CATALOG) }, 'unknown image name');
    return 2;
  }
  for (const name of selected) {
    const app = IMAGE_CATALOG[name];
    if (!app) continue;
    const image = await ensureNodeAppImage({ name, entryFile: app.entryFile, port: app.port, logger });
    logger.info(
      { image: name, tag: image.tag, created: image.created },
      image.created ? 'image built' : 'image up to date',
    );
    process.stdout.write(`${name}: ${image.tag}\n`);
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
