import { describe, expect, it } from '@jest/globals';
import { MAX_UINT256 } from '@sandbox/tickets';
import { CliError, parseCli, parseWinProb } from './cli';

const base = ['--bootstrap-secret-file', '/tmp/secret'];

describe('parseCli', () => {
  it('applies Node defaults', () => {
    expect(parseCli(base)).toMatchObject({
      listen: { host: '127.0.0.1', port: 8935 },
      metricsListen: { host: '127.0.0.1', port: 8936 },
      heartbeatIntervalMs: 5_000,
      heartbeatTtlMs: 30_000,
      runnerGrants: [],
      paid: undefined,
    });
  });

  it('accepts repeated and comma-separated grants under both flag spellings', () => {
    const flags = parseCli([...base, '--runner-grant', '127.0.0.1:1', '--runner-grants', 'a:2,b:3']);
    expect(flags !== 'help' && flags.runnerGrants).toEqual(['127.0.0.1:1', 'a:2', 'b:3']);
  });

  it('parses paid mode', () => {
    const flags = parseCli([...base, '--paid', '--wei-per-usd', '5e14', '--ticket-win-prob', '1']);
    expect(flags !== 'help' && flags.paid).toEqual({
      weiPerUsd: { num: 500000000000000n, den: 1n },
      faceValue: 1_000_000_000_000_000n,
      winProb: 1n,
      recipient: undefined,
      payerKeyFile: undefined,
    });
  });

  it.each([
    [['--heartbeat-ttl', '1m'], /--bootstrap-secret-file is required/u],
    [[...base, '--service-url', 'http://h/?q=1'], /--service-url must be/u],
    [[...base, '--handoff-url', 'http://h'], /go together/u],
    [[...base, '--wei-per-usd', '1'], /needs --paid/u],
    [[...base, 'positional'], /Unexpected argument/u],
  ])('rejects %j', (args, message) => {
    expect(() => parseCli(args)).toThrow(CliError);
    expect(() => parseCli(args)).toThrow(message);
  });
});

describe('parseWinProb', () => {
  it('maps fractions onto Node’s uint256 scale and accepts the raw form', () => {
    expect(parseWinProb('1.0')).toBe(MAX_UINT256);
    expect(parseWinProb('0.5')).toBe(MAX_UINT256 / 2n);
    expect(parseWinProb('42')).toBe(42n);
    expect(() => parseWinProb('0.0')).toThrow(CliError);
    expect(() => parseWinProb('1.5')).toThrow(CliError);
  });
});
