import { describe, expect, it } from '@jest/globals';
import { createStackConsole } from './console';

const PINO_LINE = JSON.stringify({
  level: 30,
  time: Date.UTC(2026, 0, 2, 3, 4, 5),
  pid: 7,
  hostname: 'box',
  svc: 'adapter',
  queue: 'instance-events',
  msg: 'runner registered',
});

const capture = (pretty: boolean) => {
  let text = '';
  return { out: createStackConsole({ write: (chunk) => void (text += chunk), pretty }), text: () => text };
};

describe('createStackConsole', () => {
  it('keeps each line as the member printed it when plain (piped)', () => {
    const { out, text } = capture(false);
    out.member('adapter', PINO_LINE);
    out.say('adapter ready at http://127.0.0.1:7102/');
    expect(text()).toBe(
      `adapter           | ${PINO_LINE}\nstack             | adapter ready at http://127.0.0.1:7102/\n`,
    );
  });

  it('prints a pino line as one readable line with its level, message and fields when pretty', () => {
    const { out, text } = capture(true);
    out.member('adapter', PINO_LINE);
    const line = text();
    expect(line.split('\n')).toHaveLength(2);
    expect(line).toContain('adapter');
    expect(line).toContain('INFO');
    expect(line).toContain('runner registered');
    expect(line).toContain('instance-events');
    expect(line).not.toContain('"level"');
    expect(line).not.toContain('hostname');
  });

  it('leaves lines that are not pino records as they are when pretty', () => {
    const { out, text } = capture(true);
    out.member('redis', '1:M 01 Jan 2026 # Server started');
    out.member('redis', '{"not":"a log record"}');
    expect(text()).toContain('1:M 01 Jan 2026 # Server started\n');
    expect(text()).toContain('{"not":"a log record"}\n');
  });

  it('shortens an access line to its method, path, status and duration when pretty', () => {
    const { out, text } = capture(true);
    const access = {
      level: 30,
      time: 0,
      msg: 'request completed',
      req: { method: 'POST', url: '/v1/tickets', headers: { host: 'h' } },
      res: { statusCode: 201 },
      responseTime: 3,
    };
    out.member('redeemer-sim', JSON.stringify(access));
    expect(text()).toContain('request completed POST /v1/tickets 201 3ms');
    expect(text()).not.toContain('headers');
  });
});
