import { expect, it } from '@jest/globals';
import { runCommand } from '../command-runner';
import { describeAsRoot } from '../test-support/describe-as-root.fixture';
import { exampleImage } from '../test-support/example-app.fixture';

describeAsRoot('ensureNodeAppImage', () => {
  it('imports the example app once and finds it by content hash afterwards', async () => {
    const tag = await exampleImage();
    expect(tag).toMatch(/^localhost\/sandbox-example-app:[0-9a-f]{16}$/);
    expect(await exampleImage()).toBe(tag);
    const { stdout } = await runCommand('podman', ['image', 'inspect', '--format=json', tag]);
    const [config] = JSON.parse(stdout) as {
      Config: { Cmd: string[]; User: string; Env: string[]; WorkingDir: string };
    }[];
    expect(config?.Config).toMatchObject({
      Cmd: ['/usr/local/bin/node', '/app/main.mjs'],
      User: '65534:65534',
      WorkingDir: '/app',
    });
    expect(config?.Config.Env).toEqual(expect.arrayContaining(['PORT=8080', 'HOST=0.0.0.0']));
  }, 120_000);

  it('runs the copied Node binary under gVisor', async () => {
    const tag = await exampleImage();
    const { stdout } = await runCommand(
      'podman',
      [
        'run',
        '--rm',
        '--pull=never',
        '--runtime=runsc',
        '--runtime-flag=network=host',
        '--network=none',
        '--read-only',
        tag,
        '/usr/local/bin/node',
        '-e',
        'console.log(process.version)',
      ],
      { timeoutMs: 60_000 },
    );
    expect(stdout.trim()).toBe(process.version);
  }, 120_000);
});
