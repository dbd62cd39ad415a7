import { describe, expect, it } from '@jest/globals';
import { CapturedStream } from '../__fixtures__/memory-io';
import { Printer } from './printer';
import { readinessProgress } from './readiness-progress';

function setup(tty: boolean) {
  const stderr = new CapturedStream(tty);
  const printer = new Printer({ format: 'table', colour: false, stdout: new CapturedStream(tty), stderr });
  return { stderr, progress: readinessProgress(printer) };
}

describe('readinessProgress', () => {
  it('prints one line per change when stderr is not a terminal', () => {
    const { stderr, progress } = setup(false);
    progress.update({ app: 'echo', declared: 2, ready: 0, registered: 0 });
    progress.update({ app: 'echo', declared: 2, ready: 0, registered: 0 });
    progress.update({ app: 'echo', declared: 2, ready: 2, registered: 1 });
    progress.stop();
    expect(stderr.text).toBe('app/echo: ready 0/2, registered 0/2\napp/echo: ready 2/2, registered 1/2\n');
  });

  it('draws a bar per app on a terminal', () => {
    const { stderr, progress } = setup(true);
    progress.update({ app: 'echo', declared: 2, ready: 2, registered: 1 });
    progress.update({ app: 'other', declared: 0, ready: 0, registered: 0 });
    progress.stop();
    expect(stderr.text).toContain('app/echo [');
    expect(stderr.text).toContain('] ready 2/2  registered 1/2');
    expect(stderr.text).toContain('app/other [');
  });
});
