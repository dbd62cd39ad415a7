/** A pending timer; `cancel` is a no-op once it has fired. */
export interface TimerHandle {
  cancel(): void;
}

/** A cancellable one-shot timer; injected so tests trigger timeouts without sleeping. */
export type Schedule = (callback: () => void, ms: number) => TimerHandle;

/** {@link Schedule} on the real clock (`setTimeout`), keeping the process alive while pending. */
export const realSchedule: Schedule = (callback, ms) => {
  const timer = setTimeout(callback, ms);
  return { cancel: () => clearTimeout(timer) };
};

/** Resolves after `ms` on the given schedule. */
export function delay(ms: number, schedule: Schedule = realSchedule): Promise<void> {
  return new Promise((resolve) => {
    schedule(resolve, ms);
  });
}
