import { randomBytes } from 'node:crypto';
import type { PaymentChallenge, WinningTicket } from '@sandbox/protocol';
import { bytesToHex, computeRecipientRandHash } from '@sandbox/tickets';
import type { Clock } from '@sandbox/service-kit';
import type { Rational } from '../go/rational';
import { compare, multiply, reduce, subtract } from '../go/rational';
import type { SimulatedChain } from './chain';
import { validatePayment } from './payment-validate';
import { RecipientSecrets } from './recipient-secrets';
import type { WireOrchestratorInfo, WirePrice } from './wire';
import { encodeBlob } from './wire';

/** Where winning tickets go; `store` resolves only once they are durable. */
export interface WinnerSink {
  store(winners: WinningTicket[]): Promise<void>;
}

export interface PaymentEngineConfig {
  /** The orchestrator's on-chain address, the recipient of every ticket. */
  readonly recipient: string;
  readonly faceValue: bigint;
  readonly winProb: bigint;
}

export interface PaymentSession {
  readonly runner: string;
  readonly payer: string;
  readonly price: WirePrice;
  readonly unit: 'seconds' | 'fixed';
  info: WireOrchestratorInfo;
  balance: Rational;
  lastCharge: number | undefined;
}

/** Why a payment was refused: Node answers 403 for `invalid`, 404 for `missing`, 400 otherwise. */
export type PaymentRefusal = { kind: 'invalid' | 'missing' | 'other'; message: string };

export type ChargeResult = 'ok' | 'insufficient' | 'fixed-charged' | 'missing';

/** Node's payment engine: challenges, ticket receipt and per-session accounting, all in memory. */
export class PaymentEngine {
  readonly sessions = new Map<string, PaymentSession>();
  /** Ticket nonces seen per recipient randomness (replay guard). */
  readonly nonces = new Map<string, Set<number>>();
  /** Recipient randomness and auth tokens; new keys per process, as in Node. */
  readonly secrets = new RecipientSecrets();

  constructor(
    readonly config: PaymentEngineConfig,
    readonly chain: SimulatedChain,
    readonly clock: Clock,
    readonly sink: WinnerSink,
  ) {}

  /** Node's `MakeChallenge`: fresh ticket params (expiring 40 blocks on) and an hour-long auth token. */
  makeChallenge(
    runner: string,
    manifest: string,
    payer: string,
    wei: bigint,
    unit: 'seconds' | 'fixed',
    service: string,
  ): PaymentChallenge | Error {
    const block = this.chain.block();
    const round = this.chain.round();
    const roundHash = this.chain.roundBlockHash(round);
    const price: WirePrice = { pricePerUnit: wei.toString(), unitsPerPrice: '1' };
    const seed = bytesToHex(randomBytes(32));
    const expirationBlock = block + 40n;
    const { faceValue, winProb } = this.config;
    const rand = this.secrets.recipientRand({
      seed,
      payer,
      faceValue,
      winProb,
      expirationBlock,
      price,
      round,
      roundHash,
    });
    const info: WireOrchestratorInfo = {
      format: 'node-sim/1',
      transcoder: service,
      address: this.config.recipient,
      price,
      ticketParams: {
        recipient: this.config.recipient,
        faceValue: this.config.faceValue.toString(),
        winProb: this.config.winProb.toString(),
        recipientRandHash: computeRecipientRandHash(rand),
        seed,
        expirationBlock: expirationBlock.toString(),
        creationRound: round.toString(),
        creationRoundBlockHash: roundHash,
      },
      auth: this.secrets.authToken(manifest, Math.floor(this.clock.now() / 1000) + 3600),
    };
    const current = this.sessions.get(manifest);
    if (!current) {
      if (this.sessions.size >= 100_000) return new Error('payment session capacity reached');
      this.sessions.set(manifest, {
        runner,
        payer: payer.toLowerCase(),
        price,
        unit,
        info,
        balance: { num: 0n, den: 1n },
        lastCharge: undefined,
      });
    } else if (
      current.runner !== runner ||
      current.payer !== payer.toLowerCase() ||
      current.price.pricePerUnit !== price.pricePerUnit ||
      current.unit !== unit
    ) {
      return new Error('payment session scope conflict');
    } else current.info = info;
    return challengeBody(runner, manifest, service, info);
  }

  challengeForManifest(runner: string, manifest: string, service: string): PaymentChallenge | undefined {
    const current = this.sessions.get(manifest);
    return current && current.runner === runner
      ? challengeBody(runner, manifest, service, current.info)
      : undefined;
  }

  /** `/refresh-payment`: new params for the same payer and manifest. */
  refreshChallenge(
    manifest: string,
    payer: string,
    service: string,
  ): PaymentChallenge | 'missing' | 'invalid' {
    const current = this.sessions.get(manifest);
    if (!current) return 'missing';
    if (current.payer !== payer.toLowerCase()) return 'invalid';
    const challenge = this.makeChallenge(
      current.runner,
      manifest,
      payer,
      BigInt(current.price.pricePerUnit),
      current.unit,
      service,
    );
    return challenge instanceof Error ? 'invalid' : challenge;
  }

  /** The price a pending reservation agreed to, scoped to its runner. */
  challengePrice(runner: string, manifest: string): { wei: bigint; unit: 'seconds' | 'fixed' } | undefined {
    const current = this.sessions.get(manifest);
    return current && current.runner === runner
      ? { wei: BigInt(current.price.pricePerUnit), unit: current.unit }
      : undefined;
  }

  /** Validates a ticket batch, stores its winners durably, and only then credits the session. */
  async receive(
    runner: string,
    manifest: string,
    payment: string,
    segment: string,
  ): Promise<PaymentRefusal | undefined> {
    const checked = validatePayment(this, runner, manifest, payment, segment);
    if ('kind' in checked) return checked;
    try {
      await this.sink.store(checked.winners);
    } catch {
      // Nothing is credited unless every winner is durable (Node answers 400 with the store error).
      return { kind: 'other', message: 'winning ticket storage failed' };
    }
    if (this.sessions.get(manifest) !== checked.session)
      return { kind: 'missing', message: 'payment challenge not found' };
    const seen = this.nonces.get(checked.randKey) ?? new Set<number>();
    for (const nonce of checked.nonces) seen.add(nonce);
    this.nonces.set(checked.randKey, seen);
    checked.session.balance = reduce(checked.balance);
    return undefined;
  }

  /** Node's `Charge`: fixed prices once, `seconds` prices per whole elapsed second. */
  charge(manifest: string, now: number): ChargeResult {
    const current = this.sessions.get(manifest);
    if (!current) return 'missing';
    let units = 0n;
    let chargedAt = now;
    if (current.unit === 'fixed') {
      if (current.lastCharge !== undefined) return 'fixed-charged';
      units = 1n;
    } else if (current.lastCharge !== undefined) {
      units = BigInt(Math.max(Math.floor((now - current.lastCharge) / 1000), 0));
      if (units > 3600n) return 'insufficient';
      if (units === 0n) return 'ok';
      chargedAt = current.lastCharge + Number(units) * 1000;
    }
    const fee = multiply(
      { num: BigInt(current.price.pricePerUnit), den: BigInt(current.price.unitsPerPrice) },
      { num: units, den: 1n },
    );
    if (compare(current.balance, fee) < 0) return 'insufficient';
    current.balance = reduce(subtract(current.balance, fee));
    current.lastCharge = chargedAt;
    return 'ok';
  }
}

function challengeBody(
  runner: string,
  manifest: string,
  service: string,
  info: WireOrchestratorInfo,
): PaymentChallenge {
  return {
    payment_params: encodeBlob(info),
    orchestrator: service,
    manifest_id: manifest,
    payment_url: `${service}/apps/${runner}/session/${manifest}/payment`,
  };
}
