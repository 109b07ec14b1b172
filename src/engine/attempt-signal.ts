/**
 * The signals of one attempt of an item: the run's, with the step's timeout on top; and a race that lets no step
 * that ignores its signal hang the run.
 */
import { setMaxListeners } from 'node:events';
import { TimeoutError } from '../errors.js';
import type { StepSpec } from '../playbook/model.js';
import type { Item } from '../steps/contract.js';

export function timeoutSignal(
  parent: AbortSignal,
  spec: StepSpec,
  item: Item,
): { signal: AbortSignal; clear(): void } {
  if (spec.timeoutMs === undefined) return { signal: parent, clear: () => undefined };
  const controller = new AbortController();
  const what = `step '${spec.id}'${item.key ? ` item '${item.key}'` : ''}`;
  const timer = setTimeout(
    () => controller.abort(new TimeoutError(`${what} took longer than its timeout (${spec.timeoutMs} ms)`)),
    spec.timeoutMs,
  );
  const signal = AbortSignal.any([parent, controller.signal]);
  setMaxListeners(0, signal);
  return { signal, clear: () => clearTimeout(timer) };
}

/** Settle with the promise, or reject as soon as the signal aborts (a step that ignores its signal cannot hang the run). */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  const reason = (): Error =>
    signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason));
  if (signal.aborted) return Promise.reject(reason());
  let onAbort = (): void => undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(reason());
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([promise, aborted]).finally(() => signal.removeEventListener('abort', onAbort));
}
