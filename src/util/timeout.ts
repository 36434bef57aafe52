// Waiting on something that may never answer (a server that is gone) with a bound.

const duration = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);

/** The promise's outcome, or a rejection naming `what` once `ms` passed first. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${duration(ms)}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Waits for the promise to settle, at most `ms`; its result and errors are ignored. */
export async function settleWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  await withTimeout(promise, ms, 'close').catch(() => undefined);
}

/** Resolves when the `wake` handed to `register` is called, or once `ms` passed, whichever comes first. */
export function wokenOrAfter(ms: number, register: (wake: () => void) => void): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    register(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
