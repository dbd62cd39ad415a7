// A parent for the host-sweep spec: takes a prefix from uniqueHost (which arms the sweep), creates a
// network namespace, a veth pair and an iptables chain with a jump to it under that prefix, as the
// driver names them, prints the prefix and waits to be killed. Usage: host-owner.fixture.ts
import { runCommand } from '../command-runner';
import { instanceNames } from '../naming';
import { uniqueHost } from './unique-host.fixture';

const { prefix } = uniqueHost('hs');
const names = instanceNames(prefix, 'guardspec0');
await runCommand('ip', ['netns', 'add', names.netns]);
await runCommand('ip', ['link', 'add', names.hostVeth, 'type', 'veth', 'peer', 'name', names.instanceVeth]);
await runCommand('iptables', ['-w', '5', '-N', names.egressChain]);
await runCommand('iptables', ['-w', '5', '-A', 'INPUT', '-i', names.hostVeth, '-j', names.egressChain]);
process.stdout.write(`${prefix}\n`);
setInterval(() => undefined, 1_000);
