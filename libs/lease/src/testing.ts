// What only specs use: the recorded checkpoints of a lease, to assert which holder acted when. Lint
// refuses `@sandbox/*/testing` outside tests, e2e and tools.
export { readLeaseActs, type LeaseAct } from './lease-guard';
