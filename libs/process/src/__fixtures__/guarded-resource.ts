// A parent for the guard spec: creates one host resource of the kind named by its argument under a
// guard, prints the resource's name, and waits to be killed. Usage: guarded-resource.ts <kind> <name>
import { execFileSync } from 'node:child_process';
import { guardContainer, guardNetworkNamespace, startGuard } from '../group-guard';

const [kind, name = ''] = process.argv.slice(2);
const run = (command: string, args: string[]) => execFileSync(command, args, { stdio: 'ignore' });

if (kind === 'container') {
  // gVisor with the host's root as a throw-away overlay: no image needed, nothing on the host written.
  run('podman', [
    ...['run', '--detach', `--name=${name}`, '--runtime=runsc', '--runtime-flag=network=none'],
    ...['--network=none', '--rootfs', '/:O', 'sleep', '600'],
  ]);
  guardContainer(name);
} else if (kind === 'netns') {
  run('ip', ['netns', 'add', name]);
  guardNetworkNamespace(name);
} else if (kind === 'chain') {
  run('iptables', ['-w', '5', '-N', name]);
  startGuard({
    label: 'chain-guard',
    steps: [
      ['iptables', '-w', '5', '-F', name],
      ['iptables', '-w', '5', '-X', name],
    ],
    stopOnFailure: true,
  });
} else {
  throw new Error(`unknown kind "${kind}"`);
}
process.stdout.write(`${name}\n`);
setInterval(() => undefined, 1_000);
