import {
  IDEMPOTENCY_KEY_HEADER,
  RedemptionOutcomesQuerySchema,
  RedemptionSubmissionSchema,
  type RedeemerRejection,
  type RedemptionOutcomesPage,
  type RedemptionReceipt,
} from '@sandbox/protocol';
import { bearerAuth, ConflictError, InputError, UnavailableError, validate } from '@sandbox/service-kit';
import { Router, type RequestHandler } from 'express';
import type { FaultState } from '../faults';
import type { TicketChecker } from '../ledger/verdict-memo';
import type { SimStore } from '../store/sim-store';
import { createSubmitBatcher } from '../store/submit-batcher';

/** Dependencies of {@link redeemerRouter}. */
export interface RedeemerRouterDeps {
  readonly store: SimStore;
  readonly faults: FaultState;
  /** The contract's checks, run on each delivery before it is stored. */
  readonly check: TicketChecker;
  readonly token: string;
  readonly now: () => number;
  readonly recipient?: string;
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Latency and outages in front of every redeemer API call. */
function faultGate(faults: FaultState): RequestHandler {
  return async (req, _res, next) => {
    const { latencyMs, outage } = faults.current;
    if (latencyMs > 0) await pause(latencyMs);
    // A hung redeemer: no answer until the caller gives up (or the socket closes).
    if (outage === 'hang') return void req.socket.once('close', () => undefined);
    if (outage === 'unavailable') throw new UnavailableError('the redeemer is down (simulated outage)');
    next();
  };
}

/**
 * The redemption service API of the contract in `@sandbox/protocol`: `POST /v1/tickets` (stored
 * durably before the answer, concurrent deliveries in one commit; 201 accepted, 200 duplicate, 409 conflict, 422 rejected) and
 * `GET /v1/outcomes`. Injected faults: latency, outages, failures before storing, and lost
 * acknowledgements (stored, then 503).
 */
export function redeemerRouter(deps: RedeemerRouterDeps): Router {
  const router = Router();
  const { faults } = deps;
  const submit = createSubmitBatcher(deps.store);
  router.use('/v1', bearerAuth(deps.token), faultGate(faults));
  router.post('/v1/tickets', async (req, res) => {
    const { ticket } = validate(RedemptionSubmissionSchema, req.body, 'body');
    if (req.get(IDEMPOTENCY_KEY_HEADER) !== ticket.ticketHash) {
      throw new InputError(`${IDEMPOTENCY_KEY_HEADER} must be the ticket hash`);
    }
    if (faults.random() < faults.current.failureRate) throw new UnavailableError('simulated failure');
    const reject = (reason: RedeemerRejection['reason'], message: string): void => {
      const body: RedeemerRejection = { ticketHash: ticket.ticketHash, status: 'rejected', reason, message };
      res.status(422).json(body);
    };
    if (deps.recipient !== undefined && ticket.recipient !== deps.recipient) {
      return reject('recipient_mismatch', 'the ticket pays another recipient');
    }
    const check = deps.check(ticket);
    if (!check.ok) return reject(check.reason, check.message);
    const stored = await submit(ticket, deps.now());
    if (stored === 'conflict') throw new ConflictError('this ticket hash is known with other contents');
    if (faults.random() < faults.current.lostAckRate)
      throw new UnavailableError('simulated lost acknowledgement');
    const body: RedemptionReceipt = { ticketHash: ticket.ticketHash, status: stored };
    res.status(stored === 'accepted' ? 201 : 200).json(body);
  });
  router.get('/v1/outcomes', (req, res) => {
    const query = validate(RedemptionOutcomesQuerySchema, req.query, 'query');
    const outcomes = deps.store.outcomesAfter(query.after, query.limit);
    const body: RedemptionOutcomesPage = { outcomes, nextAfter: outcomes.at(-1)?.seq ?? query.after };
    res.json(body);
  });
  return router;
}
