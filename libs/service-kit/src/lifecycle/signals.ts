import type { Logger } from 'pino';
import type { Shutdown } from './shutdown';

/** The part of `process` {@link installSignalHandlers} uses (an EventEmitter in tests). */
export type SignalSource = Pick<NodeJS.EventEmitter, 'on' | 'off'>;

/** The signals that start a graceful shutdown. */
export const SHUTDOWN_SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/**
 * Wires a process to its shutdown: SIGTERM and SIGINT start it (a second signal only logs); an
 * unhandled rejection is logged and the process keeps running; an uncaught exception is logged
 * and starts a shutdown that exits 1, since the process state is no longer known.
 * Returns a function that removes the handlers.
 */
export function installSignalHandlers(
  source: SignalSource,
  deps: { shutdown: Shutdown; logger: Pick<Logger, 'info' | 'error' | 'fatal'> },
): () => void {
  const { shutdown, logger } = deps;
  const onSignal = (signal: string): void => {
    logger.info({ signal }, 'signal received');
    void shutdown.run(signal);
  };
  const onRejection = (reason: unknown): void => {
    logger.error({ err: reason }, 'unhandled promise rejection');
  };
  const onException = (error: unknown): void => {
    logger.fatal({ err: error }, 'uncaught exception');
    void shutdown.run('uncaughtException', 1);
  };
  const listeners: [string, (arg: unknown) => void][] = [
    ...SHUTDOWN_SIGNALS.map((signal): [string, () => void] => [signal, () => onSignal(signal)]),
    ['unhandledRejection', onRejection],
    ['uncaughtException', onException],
  ];
  for (const [event, listener] of listeners) source.on(event, listener);
  return () => {
    for (const [event, listener] of listeners) source.off(event, listener);
  };
}
