/**
 * Run `work` over `units`, `concurrency` at a time, keeping input order in the results. After the first
 * failure, or once `signal` is aborted, no new unit starts; the ones in flight finish; then the first error is
 * thrown, or the signal's reason when units were left unstarted.
 */
export async function pool<U, R>(
  units: readonly U[],
  concurrency: number,
  signal: AbortSignal,
  onFailure: (error: unknown) => void,
  work: (unit: U) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(units.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (failure === undefined && !signal.aborted && next < units.length) {
      const index = next++;
      try {
        results[index] = await work(units[index] as U);
      } catch (error) {
        failure ??= { error };
        onFailure(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, units.length) }, worker));
  if (failure) throw failure.error;
  if (next < units.length) throw signal.reason;
  return results;
}
