import WebSocket from 'ws';

/** Sends one WebSocket message and resolves with the first message back. */
export function wsRoundTrip(url: string, message: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.on('open', () => socket.send(message));
    socket.on('message', (data: Buffer) => {
      socket.close(1000);
      resolve(data.toString());
    });
    socket.on('error', reject);
  });
}
