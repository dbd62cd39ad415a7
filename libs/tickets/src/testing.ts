// The payer's side of tickets, for simulators (node-sim, redeemer-sim), tests and benches: signing with a
// private key and building signed winners. Production code only checks tickets (the root entry);
// lint refuses `@sandbox/*/testing` outside tests, e2e and tools.
export { addressOfPrivateKey, signEthMessage } from './eth-signature';
export { buildWinningTicket, type BuildTicketInput } from './ticket-builder';
