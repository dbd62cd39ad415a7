import { connect } from 'node:net';

/** True when nothing listens on 127.0.0.1:port. */
export function refusesConnections(port: number): Promise<boolean> {
  return new Promise<boolean>((done) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.on('connect', () => {
      socket.destroy();
      done(false);
    });
    socket.on('error', () => done(true));
  });
}
