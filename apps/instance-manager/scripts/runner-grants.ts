// Prints Node's --runner-grants for the instance address range, one comma-separated line:
//   node --import tsx apps/instance-manager/scripts/runner-grants.ts <cidr> <port>[,<port>...] [--pod-cidr]
// e.g. `10.213.0.0/22 8080` for the local driver (instances at the .2 of each /30), or
// `10.42.0.0/24 8080 --pod-cidr` for a k3s node's pod range. See the README, "Node and private addresses".
import { runnerGrants } from '@sandbox/protocol';

const [cidr, ports, flag] = process.argv.slice(2);
if (!cidr || !ports) {
  process.stderr.write('usage: runner-grants.ts <cidr> <port>[,<port>...] [--pod-cidr]\n');
  process.exit(2);
}
process.stdout.write(
  `${runnerGrants(cidr, ports.split(',').map(Number), flag !== '--pod-cidr').join(',')}\n`,
);
