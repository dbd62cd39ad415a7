// Child process of the watchdog test: starts a harness from already built binaries, prints its pids
// and directory as one JSON line, then waits to be killed. Never calls stop().
// Usage: node --import tsx orphan-harness.fixture.ts
import { ensureKubeBinaries } from '../build/ensure-kube-binaries';
import { startKubeHarness } from '../control-plane/kube-harness';

const harness = await startKubeHarness({ binaries: await ensureKubeBinaries() });
process.stdout.write(`${JSON.stringify({ ...harness.pids(), dir: harness.dir })}\n`);
setInterval(() => undefined, 60_000);
