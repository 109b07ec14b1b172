/** Sleeping that an abort (a cancelled workflow, a restarted node) interrupts. */
export class Aborted extends Error {
  constructor() {
    super('aborted');
  }
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new Aborted());
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new Aborted());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
