import { randomBytes } from 'node:crypto';
import { bytesToHex, hexToBytes, keccak256, recoverEthSigner } from '@sandbox/tickets';
import { addressOfPrivateKey, signEthMessage } from '@sandbox/tickets/testing';
import type { Clock } from '@sandbox/service-kit';
import type { Rational } from '../go/rational';
import { add, compare, multiply, reduce, subtract } from '../go/rational';
import type { SimulatedChain } from './chain';
import { checksumAddress } from './checksum-address';
import { segmentDigest } from './payment-validate';
import { expectedValue, signTicket, ticketFromParams } from './ticket';
import type { SignerStateBody, WireOrchestratorInfo, WirePayment, WireSegment } from './wire';
import { encodeBlob, SignerStateBodySchema } from './wire';

/** A signer answer: status, JSON body, extra headers. */
export interface SignerReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface PaymentRequest {
  info: WireOrchestratorInfo;
  type: 'live' | 'fixed';
  manifestId: string;
  app: string;
  state: { state: string; sig: string } | undefined;
}

const refusal = (status: number, error: string, headers?: Record<string, string>): SignerReply => ({
  status,
  body: { error },
  headers,
});

/**
 * The remote signer's payment generation (Node's `remoteSender.Generate`): a live payment covers 10 s
 * first and then the whole seconds since the last one; fixed covers the price once. Tickets are real,
 * secp256k1-signed by the payer key.
 */
export class SimulatedSigner {
  readonly address: string;

  constructor(
    private readonly key: Uint8Array,
    private readonly chain: SimulatedChain,
    private readonly clock: Clock,
  ) {
    this.address = addressOfPrivateKey(key);
  }

  /** `POST /sign-orchestrator-info`: the payer address and a signature over it. */
  signInfo(): { address: string; signature: string } {
    const address = checksumAddress(this.address);
    return { address, signature: signEthMessage(new TextEncoder().encode(address), this.key) };
  }

  /** Verifies and decodes client-held state signed by this signer. */
  openState(state: { state: string; sig: string }): SignerStateBody | 'bad-signature' | 'bad-state' {
    const bytes = Buffer.from(state.state, 'base64');
    const sig = bytesToHex(Buffer.from(state.sig, 'base64'));
    if (recoverEthSigner(bytes, sig) !== this.address) return 'bad-signature';
    try {
      const parsed = SignerStateBodySchema.safeParse(JSON.parse(bytes.toString('utf8')));
      return parsed.success ? parsed.data : 'bad-state';
    } catch {
      return 'bad-state';
    }
  }

  newState(request: PaymentRequest): SignerStateBody {
    return {
      stateId: randomBytes(16).toString('hex'),
      pmSessionId: '',
      lastUpdate: 0,
      orchestratorAddress: request.info.address,
      app: request.app,
      type: request.type,
      manifestId: request.manifestId,
      senderNonce: 0,
      balance: '0/1',
      initialPrice: request.info.price.pricePerUnit,
      sequence: 0,
    };
  }

  /** Generates the payment for one cycle (480 refresh, 482 skip, 400 for anything malformed). */
  generate(request: PaymentRequest, state: SignerStateBody, first: boolean): SignerReply {
    const { info } = request;
    const params = info.ticketParams;
    const now = this.clock.now();
    const seconds =
      request.type === 'fixed'
        ? 1n
        : first
          ? 10n
          : BigInt(Math.max(Math.ceil((now - state.lastUpdate) / 1000), 1));
    if (seconds > 3600n) return refusal(400, 'payment interval exceeds one hour');
    const fee = multiply(
      { num: BigInt(info.price.pricePerUnit), den: BigInt(info.price.unitsPerPrice) },
      { num: seconds, den: 1n },
    );
    const refresh = { 'Livepeer-Orchestrator-URL': info.transcoder };
    const round = this.chain.round();
    const creationRound = BigInt(params.creationRound);
    if (
      BigInt(params.expirationBlock) <= this.chain.block() + 1n ||
      creationRound < round - 2n ||
      creationRound > round
    ) {
      return refusal(480, 'ticket params expired', refresh);
    }
    const nonceStart = state.pmSessionId === params.recipientRandHash ? state.senderNonce : 0;
    if (nonceStart >= 500) return refusal(480, 'ticket nonce exhausted', refresh);
    const balance = ratFromString(state.balance);
    const ev = expectedValue(BigInt(params.faceValue), BigInt(params.winProb));
    const count = ticketsNeeded(fee, balance, ev);
    if (count === 0) return refusal(482, 'no tickets needed');
    if (count > 100) return refusal(400, 'payment requires more than 100 tickets');
    const payment = this.tickets(request, nonceStart, count);
    const segment = this.segment(request);
    let remaining: Rational = balance;
    for (let i = 0; i < count; i += 1) remaining = add(remaining, ev);
    const next: SignerStateBody = {
      ...state,
      pmSessionId: params.recipientRandHash,
      senderNonce: nonceStart + count,
      balance: ratToString(reduce(subtract(remaining, fee))),
      lastUpdate: now,
      sequence: first ? 0 : state.sequence + 1,
    };
    const stateBytes = Buffer.from(JSON.stringify(next));
    return {
      status: 200,
      body: {
        payment: encodeBlob(payment),
        segCreds: encodeBlob(segment),
        state: {
          state: stateBytes.toString('base64'),
          sig: Buffer.from(hexToBytes(signEthMessage(stateBytes, this.key))).toString('base64'),
        },
      },
    };
  }

  private tickets(request: PaymentRequest, nonceStart: number, count: number): WirePayment {
    const params = request.info.ticketParams;
    const senderParams = Array.from({ length: count }, (_, i) => {
      const senderNonce = nonceStart + i + 1;
      const sig = signTicket(ticketFromParams(params, this.address, senderNonce), this.key);
      return { senderNonce, sig };
    });
    return { ticketParams: params, sender: this.address, expectedPrice: request.info.price, senderParams };
  }

  private segment(request: PaymentRequest): WireSegment {
    const hash = bytesToHex(keccak256());
    const signature = signEthMessage(segmentDigest(request.manifestId, hash), this.key);
    return { manifestId: request.manifestId, hash, signature, auth: request.info.auth };
  }
}

/** Tickets needed so that balance plus their value covers the fee (0 when it already does). */
function ticketsNeeded(fee: Rational, balance: Rational, ev: Rational): number {
  if (compare(balance, fee) >= 0) return 0;
  const missing = subtract(fee, balance);
  // ceil(missing / ev)
  const num = missing.num * ev.den;
  const den = missing.den * ev.num;
  return Number((num + den - 1n) / den);
}

function ratFromString(text: string): Rational {
  const [num = '0', den = '1'] = text.split('/');
  return { num: BigInt(num), den: BigInt(den) };
}

function ratToString(value: Rational): string {
  return `${value.num}/${value.den}`;
}
