import type { IncomingMessage, ServerResponse } from 'node:http';
import { NodeErrorMessage, NodeHeader, NodeLimits } from '@sandbox/protocol';
import type { TimerHandle } from '@sandbox/service-kit';
import { readBody } from '../http/body';
import { fail, writeJson } from '../http/respond';
import type { AdvertisedPriceValue } from '../registry/price';
import type { Reservation } from '../registry/session-registry';
import type { Forward, PaymentGate, SimContext } from '../sim-context';
import type { Router } from '../http/router';
import { discoveryRunnerJson } from '../routes/client.routes';
import { addSignerRoutes } from '../routes/signer.routes';
import type { PaymentEngine } from './payment-engine';
import type { SimulatedSigner } from './signer';
import { header, isAddress, parseRefreshRequest } from './payment-request';
import { manifestFromSegment } from './payment-validate';

type Base = Omit<SimContext, 'payments'>;

/** Node's paid HTTP flow (payment.go): 402 challenges, ticket receipt, activation, top-ups, metering. */
export class NodePaymentGate implements PaymentGate {
  #meter: TimerHandle | undefined;

  constructor(
    private readonly ctx: Base,
    readonly engine: PaymentEngine,
    readonly signer: SimulatedSigner,
  ) {}

  addRoutes(router: Router): void {
    const now = () => this.ctx.state.clock.now();
    addSignerRoutes(router, this.signer, now, {
      address: this.ctx.state.config.serviceUrl,
      runners: () => this.ctx.runners.discovery().map(discoveryRunnerJson),
      now,
    });
  }

  start(): void {
    this.#meter = this.ctx.state.clock.every(NodeLimits.paymentMeterMs, () => this.chargePaidSessions());
  }

  stop(): void {
    this.#meter?.cancel();
  }

  /** Every second: debit active paid sessions, releasing those whose balance ran dry. */
  chargePaidSessions(): void {
    const now = this.ctx.state.clock.now();
    for (const sessionId of this.ctx.sessions.paidSessions()) {
      const result = this.engine.charge(sessionId, now);
      if (result === 'ok' || result === 'fixed-charged') continue;
      this.ctx.logger.warn({ sessionId, reason: result }, 'paid session ended');
      this.ctx.sessions.releaseBySession(sessionId);
    }
  }

  reservationPrice(req: IncomingMessage, runnerId: string): ReturnType<PaymentGate['reservationPrice']> {
    if (header(req, NodeHeader.Payment) === '' || header(req, NodeHeader.Segment) === '') return undefined;
    const manifest = manifestFromSegment(header(req, NodeHeader.Segment));
    if (manifest === undefined) return { ok: false, status: 403, error: NodeErrorMessage.InvalidPayment };
    const agreed = this.engine.challengePrice(runnerId, manifest);
    if (!agreed) return { ok: false, status: 403, error: NodeErrorMessage.PaymentChallengeNotFound };
    return { ok: true, value: { wei: agreed.wei, usd: '', currency: 'wei', unit: agreed.unit } };
  }

  private challenge(
    req: IncomingMessage,
    res: ServerResponse,
    runnerId: string,
    price: AdvertisedPriceValue,
  ): void {
    const payer = header(req, NodeHeader.PayerAddress);
    if (!isAddress(payer)) return fail(res, 402, NodeErrorMessage.PayerAddressRequired);
    const unit = price.unit === 'fixed' ? 'fixed' : 'seconds';
    const normalized = `0x${payer.replace(/^0x/u, '').toLowerCase()}`;
    const challenge = this.engine.makeChallenge(
      runnerId,
      this.ctx.state.newId('session'),
      normalized,
      price.wei,
      unit,
      this.ctx.state.config.serviceUrl,
    );
    if (challenge instanceof Error) return fail(res, 502, NodeErrorMessage.PaymentChallengeUnavailable);
    writeJson(res, 402, challenge);
  }

  /** Validates and credits the payment headers (Node's `paidReceipt`); answers the failure itself. */
  private async receipt(
    req: IncomingMessage,
    res: ServerResponse,
    runnerId: string,
    price: AdvertisedPriceValue,
  ): Promise<string | undefined> {
    const manifest = manifestFromSegment(header(req, NodeHeader.Segment));
    if (manifest === undefined) return void fail(res, 402, NodeErrorMessage.InvalidSegmentCredentials);
    const info = this.engine.sessions.get(manifest)?.info;
    if (!info || BigInt(info.price.pricePerUnit) !== price.wei || info.price.unitsPerPrice !== '1') {
      return void fail(res, 409, NodeErrorMessage.RunnerPriceChanged);
    }
    const refusal = await this.engine.receive(
      runnerId,
      manifest,
      header(req, NodeHeader.Payment),
      header(req, NodeHeader.Segment),
    );
    if (refusal)
      return void fail(
        res,
        refusal.kind === 'missing' ? 404 : refusal.kind === 'invalid' ? 403 : 400,
        refusal.message,
      );
    return manifest;
  }

  /** A request without payment headers is answered with the challenge; one with them is paid for. */
  private async paidReservation(
    req: IncomingMessage,
    res: ServerResponse,
    runnerId: string,
    price: AdvertisedPriceValue,
  ): Promise<Reservation | undefined> {
    if (header(req, NodeHeader.Payment) === '' || header(req, NodeHeader.Segment) === '') {
      this.challenge(req, res, runnerId, price);
      return undefined;
    }
    return this.pay(req, res, runnerId, price);
  }

  /** Reserves the challenge's session, takes payment, runs the first charge and activates it. */
  private async pay(
    req: IncomingMessage,
    res: ServerResponse,
    runnerId: string,
    price: AdvertisedPriceValue,
  ): Promise<Reservation | undefined> {
    const manifest = manifestFromSegment(header(req, NodeHeader.Segment));
    if (manifest === undefined) return void fail(res, 403, NodeErrorMessage.InvalidSegmentCredentials);
    const reserved = this.ctx.sessions.reserve(runnerId, manifest, price);
    if (!reserved.ok) return void fail(res, reserved.status, reserved.error);
    if ((await this.receipt(req, res, runnerId, price)) === undefined) {
      this.ctx.sessions.releaseBySession(manifest);
      return undefined;
    }
    if (this.engine.charge(manifest, this.ctx.state.clock.now()) !== 'ok') {
      this.ctx.sessions.releaseBySession(manifest);
      return void fail(res, 402, NodeErrorMessage.InsufficientPaymentBalance);
    }
    if (!this.ctx.sessions.activate(runnerId, manifest))
      return void fail(res, 404, NodeErrorMessage.SessionEndedDuringPayment);
    return reserved.value;
  }

  async reserve(
    req: IncomingMessage,
    res: ServerResponse,
    runnerId: string,
    price: AdvertisedPriceValue,
  ): Promise<boolean> {
    const reservation = await this.paidReservation(req, res, runnerId, price);
    if (reservation === undefined) return true;
    const { appUrl, controlUrl, sessionId } = reservation;
    writeJson(res, 200, { app_url: appUrl, control_url: controlUrl, session_id: sessionId });
    return true;
  }

  async singleShot(
    req: IncomingMessage,
    res: ServerResponse,
    runnerId: string,
    price: AdvertisedPriceValue,
    forward: Forward,
  ): Promise<boolean> {
    const reservation = await this.paidReservation(req, res, runnerId, price);
    if (reservation === undefined) return true;
    try {
      await forward(runnerId, reservation.sessionId);
    } finally {
      this.ctx.sessions.releaseBySession(reservation.sessionId);
    }
    return true;
  }

  /** `POST /apps/{rid}/session/{sid}/payment`: a top-up; answers with the challenge for the next one. */
  async sessionPayment(
    req: IncomingMessage,
    res: ServerResponse,
    runnerId: string,
    sessionId: string,
  ): Promise<void> {
    const price = this.ctx.sessions.priceForSession(runnerId, sessionId);
    if (!price.ok) return fail(res, price.status, price.error);
    if (price.value.unit === 'fixed') return fail(res, 409, NodeErrorMessage.FixedPriceNoFollowUp);
    if ((await this.receipt(req, res, runnerId, price.value)) === undefined) return;
    const challenge = this.engine.challengeForManifest(runnerId, sessionId, this.ctx.state.config.serviceUrl);
    if (!challenge) return fail(res, 500, 'payment params unavailable');
    writeJson(res, 200, challenge);
  }

  /** `POST /refresh-payment` `{sender, manifest_id}`: new ticket params for the same session. */
  async refresh(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const refresh = parseRefreshRequest(await readBody(req, NodeLimits.maxControlBodyBytes));
    if (!refresh) return fail(res, 400, NodeErrorMessage.InvalidRefreshRequest);
    const { sender, manifest } = refresh;
    const challenge = this.engine.refreshChallenge(manifest, sender, this.ctx.state.config.serviceUrl);
    if (typeof challenge === 'string') return fail(res, 404, NodeErrorMessage.PaymentChallengeNotFound);
    writeJson(res, 200, challenge);
  }
}
