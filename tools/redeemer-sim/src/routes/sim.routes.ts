import { AddressSchema, TicketHashSchema } from '@sandbox/protocol';
import { NotFoundError, validate } from '@sandbox/service-kit';
import { Router } from 'express';
import { z } from 'zod';
import { FaultsSchema, type FaultState } from '../faults';
import type { SimChain } from '../ledger/sim-chain';
import type { SimStore } from '../store/sim-store';

/** Dependencies of {@link simRouter}. */
export interface SimRouterDeps {
  readonly store: SimStore;
  readonly chain: SimChain;
  readonly faults: FaultState;
  /** Decides pending tickets now (tests need not wait for the next tick). */
  readonly redeemNow: () => number;
}

const wei = z.string().regex(/^(?:0|[1-9][0-9]*)$/);
const FundsBodySchema = z.strictObject({
  deposit: wei,
  reserve: wei,
  withdrawRound: wei.optional(),
});

/**
 * The simulator's own controls and views under `/sim` (loopback only, no credential: a development
 * tool). Views never show ticket secrets: per ticket only the hash, counters and outcome.
 */
export function simRouter(deps: SimRouterDeps): Router {
  const router = Router();
  const { store } = deps;
  router.get('/sim/ledger', (_req, res) => {
    const tickets = store.allTickets().map(({ ticket, deliveries, submissions, outcome }) => ({
      ticketHash: ticket.ticketHash,
      sender: ticket.sender,
      faceValue: ticket.faceValue,
      deliveries,
      submissions,
      ...(outcome === undefined ? {} : { outcome }),
    }));
    res.json({ block: deps.chain.block().toString(), round: deps.chain.round().toString(), tickets });
  });
  router.get('/sim/tickets/:hash', (req, res) => {
    const hash = validate(TicketHashSchema, req.params.hash, 'hash');
    const found = store.ticket(hash);
    if (!found) throw new NotFoundError('no such ticket');
    res.json({
      ticketHash: hash,
      deliveries: found.deliveries,
      submissions: found.submissions,
      outcome: found.outcome,
    });
  });
  router.get('/sim/faults', (_req, res) => void res.json(deps.faults.current));
  router.put('/sim/faults', (req, res) => {
    const changes = validate(FaultsSchema.partial(), req.body, 'body');
    deps.faults.current = { ...deps.faults.current, ...changes };
    res.json(deps.faults.current);
  });
  router.put('/sim/senders/:address', (req, res) => {
    const address = validate(AddressSchema, req.params.address, 'address');
    const body = validate(FundsBodySchema, req.body, 'body');
    store.setFunds(address, {
      deposit: BigInt(body.deposit),
      reserve: BigInt(body.reserve),
      withdrawRound: body.withdrawRound === undefined ? undefined : BigInt(body.withdrawRound),
    });
    res.status(204).end();
  });
  router.post('/sim/used-tickets', (req, res) => {
    const { ticketHash } = validate(z.strictObject({ ticketHash: TicketHashSchema }), req.body, 'body');
    store.markUsed(ticketHash);
    res.status(204).end();
  });
  router.post('/sim/chain/advance', (req, res) => {
    const { blocks } = validate(z.strictObject({ blocks: z.int().min(1) }), req.body, 'body');
    deps.chain.advance(BigInt(blocks));
    res.json({ block: deps.chain.block().toString(), round: deps.chain.round().toString() });
  });
  router.post('/sim/redeem', (_req, res) => void res.json({ decided: deps.redeemNow() }));
  return router;
}
