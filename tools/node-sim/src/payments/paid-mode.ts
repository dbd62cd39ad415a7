import { hexToBytes } from '@sandbox/tickets';
import type { NodeSimDeps } from '../node-sim';
import { SimulatedChain } from './chain';
import { NodePaymentGate } from './payment-gate';
import type { WinnerSink } from './payment-engine';
import { PaymentEngine } from './payment-engine';
import { SimulatedSigner } from './signer';

/** A well-known test key (never fund it): the default payer of the simulated signer. */
export const TEST_PAYER_KEY = '0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318';

/** The default simulated orchestrator (ticket recipient) address. */
export const TEST_RECIPIENT = '0x1de3d712f5d3103ad50e22dc1f4d3ff1559d5115';

export interface PaidModeOptions {
  readonly faceValue: bigint;
  readonly winProb: bigint;
  /** @defaultValue {@link TEST_RECIPIENT} */
  readonly recipient?: string;
  /** Payer key of the simulated signer. @defaultValue {@link TEST_PAYER_KEY} */
  readonly payerKey?: string;
  /** Where winners go (the outbox, or memory). */
  readonly sink: WinnerSink;
}

/** Builds the paid-mode gate (engine, simulated chain and signer) once the registry exists. */
export function paidMode(options: PaidModeOptions): NonNullable<NodeSimDeps['payments']> {
  return (ctx) => {
    const clock = ctx.state.clock;
    const chain = new SimulatedChain(clock);
    const recipient = (options.recipient ?? TEST_RECIPIENT).toLowerCase();
    const engine = new PaymentEngine(
      { recipient, faceValue: options.faceValue, winProb: options.winProb },
      chain,
      clock,
      options.sink,
    );
    const signer = new SimulatedSigner(hexToBytes(options.payerKey ?? TEST_PAYER_KEY), chain, clock);
    return new NodePaymentGate(ctx, engine, signer);
  };
}
