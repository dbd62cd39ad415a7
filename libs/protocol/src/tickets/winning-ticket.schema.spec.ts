import { describe, expect, it } from '@jest/globals';
import { listSchemaKeys } from '../common/schema-keys';
import { formatZodIssues } from '../errors/format-zod-issues';
import { isSecretFieldName, secretRegistry } from '../secrets';
import { WinningTicketSchema, WinningTicketSummarySchema } from './winning-ticket.schema';
import { exampleTicket } from './__fixtures__/example-ticket';

function pathsOf(value: unknown): string[] {
  const result = WinningTicketSchema.safeParse(value);
  return result.success ? [] : formatZodIssues(result.error).map((issue) => issue.path);
}

describe('WinningTicketSchema', () => {
  it('accepts a real winning ticket unchanged', () => {
    expect(WinningTicketSchema.parse(exampleTicket)).toEqual(exampleTicket);
  });

  it('accepts the extreme values of each width', () => {
    const max256 = ((1n << 256n) - 1n).toString();
    const ticket = {
      ...exampleTicket,
      faceValue: max256,
      winProb: max256,
      senderNonce: '4294967295',
      creationRound: max256,
    };
    expect(
      WinningTicketSchema.safeParse({ ...ticket, paramsExpirationBlock: '18446744073709551615' }).success,
    ).toBe(true);
  });

  it('rejects wrong sizes, widths and encodings with the path of each field', () => {
    const bad = {
      ...exampleTicket,
      recipient: exampleTicket.recipient.slice(0, -2),
      faceValue: 1e15,
      winProb: ((1n << 256n) + 1n).toString(),
      senderNonce: '4294967296',
      creationRoundBlockHash: exampleTicket.creationRoundBlockHash.toUpperCase(),
      sig: exampleTicket.sig.slice(0, 130),
      recipientRand: `${exampleTicket.recipientRand}00`,
    };
    expect(pathsOf(bad)).toEqual([
      'recipient',
      'faceValue',
      'winProb',
      'senderNonce',
      'creationRoundBlockHash',
      'sig',
      'recipientRand',
    ]);
  });

  it('requires every field and refuses extra ones', () => {
    const { recipientRand: _rand, ...withoutRand } = exampleTicket;
    expect(pathsOf(withoutRand)).toEqual(['recipientRand']);
    expect(pathsOf({ ...exampleTicket, auxData: '0x' })).toEqual(['(root)']);
  });

  it('never echoes the secrets of a malformed ticket', () => {
    const result = WinningTicketSchema.safeParse({
      ...exampleTicket,
      sig: `${exampleTicket.sig}ff`,
      recipientRand: 7,
    });
    const text = JSON.stringify(formatZodIssues(result.error ?? []));
    expect(text).not.toContain(exampleTicket.sig.slice(2, 20));
    expect(text).not.toContain(exampleTicket.recipientRand.slice(2, 20));
  });

  it('marks exactly sig and recipientRand secret, under secret field names', () => {
    const marked = listSchemaKeys(WinningTicketSchema).filter((entry) => secretRegistry.has(entry.schema));
    expect(marked.map((entry) => entry.key)).toEqual(['sig', 'recipientRand']);
    for (const entry of marked) expect(isSecretFieldName(entry.key)).toBe(true);
    const named = listSchemaKeys(WinningTicketSchema).filter((entry) => isSecretFieldName(entry.key));
    expect(named.map((entry) => entry.key)).toEqual(['sig', 'recipientRand']);
  });
});

describe('WinningTicketSummarySchema', () => {
  it('is the ticket without its secrets', () => {
    const { sig: _sig, recipientRand: _rand, ...summary } = exampleTicket;
    expect(WinningTicketSummarySchema.parse(summary)).toEqual(summary);
    expect(WinningTicketSummarySchema.safeParse(exampleTicket).success).toBe(false);
  });
});
