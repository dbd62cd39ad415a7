import { describe, expect, it } from '@jest/globals';
import { WinnerLedger, winnerOfOutboxName, type RedeemerLedger } from './winner-ledger';

const hash = (digit: string) => `0x${digit.repeat(64)}`;
const file = (digit: string, sequence = 1) =>
  `${String(1_700_000_000_000).padStart(15, '0')}-${String(sequence).padStart(6, '0')}-${hash(digit)}.json`;
const ticket = (digit: string, fields: Partial<RedeemerLedger['tickets'][number]> = {}) => ({
  ticketHash: hash(digit),
  deliveries: 1,
  submissions: 1,
  outcome: 'redeemed',
  ...fields,
});

describe('winnerOfOutboxName', () => {
  it('reads the ticket hash of a winner file and nothing else', () => {
    expect(winnerOfOutboxName(file('a'))).toBe(hash('a'));
    expect(winnerOfOutboxName(`.${file('a')}.tmp`)).toBeUndefined();
    expect(winnerOfOutboxName('notes.txt')).toBeUndefined();
    expect(winnerOfOutboxName(file('a').replace('.json', ''))).toBeUndefined();
  });
});

describe('WinnerLedger', () => {
  it('counts each winner once however often its file is seen', () => {
    const ledger = new WinnerLedger();
    expect(ledger.observe(file('a'), 10)).toBe(true);
    expect(ledger.observe(file('a', 1), 20)).toBe(false);
    expect(ledger.observe('rubbish', 20)).toBe(false);
    expect(ledger.size).toBe(1);
  });

  it('finds lost, twice-submitted, undecided and unknown tickets', () => {
    const ledger = new WinnerLedger();
    for (const digit of ['a', 'b', 'c', 'd']) ledger.observe(file(digit), 1_000);
    const comparison = ledger.compare({
      tickets: [
        ticket('a'),
        ticket('b', { submissions: 2, deliveries: 3 }),
        ticket('c', { outcome: undefined, submissions: 0 }),
        ticket('e'),
      ],
    });
    expect(comparison).toEqual({
      produced: 4,
      atRedeemer: 4,
      lost: [hash('d')],
      submittedTwice: [hash('b')],
      undecided: [hash('c')],
      unknown: [hash('e')],
      duplicateDeliveries: 2,
      outcomes: { redeemed: 3, undecided: 1 },
    });
  });

  it('does not count a winner lost while it may still be on its way', () => {
    const ledger = new WinnerLedger();
    ledger.observe(file('a'), 1_000);
    ledger.observe(file('b'), 5_000);
    expect(ledger.compare({ tickets: [] }, 2_000).lost).toEqual([hash('a')]);
  });
});
