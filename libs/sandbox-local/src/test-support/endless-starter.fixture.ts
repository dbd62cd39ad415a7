// Child process of the crash test: starts instances one after another until it is killed, printing
// each id as soon as it is started. Usage: node --import tsx endless-starter.fixture.ts <prefix> <subnet> <image>
import { pino } from 'pino';
import { createLocalDriver } from '../local-driver';

const [prefix = '', subnet = '', image = ''] = process.argv.slice(2);
const driver = createLocalDriver({ logger: pino({ level: 'silent' }), prefix, subnet });

for (;;) {
  const started = await driver.start({ image, port: 8080, resources: { cpus: 1, memoryMb: 128 } });
  process.stdout.write(`${started.instanceId}\n`);
}
