// Preloaded (`node --import`) into fixture processes: reports on stderr whenever anything starts
// listening on a port, so a test can prove a process that failed its configuration opened none.
import { Server } from 'node:net';
import { LISTEN_MARKER } from './listen-marker';

const original = Server.prototype.listen;
Server.prototype.listen = function listenSpy(this: Server, ...args: unknown[]) {
  process.stderr.write(`${LISTEN_MARKER}\n`);
  return (original as (...inner: unknown[]) => Server).apply(this, args);
} as typeof Server.prototype.listen;
