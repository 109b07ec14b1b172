import { defineStep, type JsonValue, type StepContext } from '../contract.js';
import { LedgerbookError, StepError } from '../../errors.js';
import { parseDuration } from '../../playbook/duration.js';
import { coreWaitDeclaration, type With } from './wait.declaration.js';

interface Poll {
  holds: boolean;
  seen: string;
  response: JsonValue;
}

async function poll(ctx: StepContext, w: With, attempt: number, startedAt: number): Promise<Poll> {
  let response: JsonValue = null;
  let seen = '';
  // `plan --untrusted`: the URL is one a playbook nobody reviewed yet names
  if (w.http && ctx.untrusted === true)
    return {
      holds: false,
      seen: `GET ${w.http.url} not evaluated: an untrusted plan contacts no address the playbook names`,
      response: null,
    };
  if (w.http) {
    try {
      const r = await ctx.clients.http.get(w.http.url, { headers: w.http.headers ?? {}, signal: ctx.signal });
      response = { status: r.status, body: r.body as JsonValue, headers: r.headers };
      seen = `GET ${w.http.url} → ${r.status}`;
    } catch (error) {
      // Not reachable yet is what waiting is for; anything else (a bad URL) fails the step.
      if (error instanceof LedgerbookError && error.retryability === 'transient') {
        return { holds: false, seen: error.message, response: null };
      }
      throw error;
    }
  }
  const holds =
    w.until === undefined
      ? typeof response === 'object' &&
        response !== null &&
        !Array.isArray(response) &&
        isOk(response['status'])
      : Boolean(ctx.evaluate(w.until, { response, attempt, elapsed_ms: ctx.clock.now() - startedAt }));
  return { holds, seen: seen || `\`${w.until ?? ''}\` is ${holds ? 'true' : 'false'}`, response };
}

function isOk(status: JsonValue | undefined): boolean {
  return typeof status === 'number' && status >= 200 && status < 300;
}

/** Polls an HTTP GET or an expression until a condition holds; fails with what it last saw on timeout. */
export const coreWait = defineStep<With, Poll>({
  ...coreWaitDeclaration,
  observe: (ctx, w) => poll(ctx, w, 1, ctx.clock.now()),
  plan(w, observed) {
    if (observed.holds) return { changes: [], outputs: { response: observed.response, attempts: 1 } };
    const what = w.http ? `GET ${w.http.url}` : `\`${w.until ?? ''}\``;
    return { changes: [{ action: 'wait', summary: `wait for ${what} (now: ${observed.seen})` }] };
  },
  async apply(ctx, w) {
    const interval = parseDuration(w.interval ?? '2s');
    const timeout = parseDuration(w.timeout ?? '5m');
    const startedAt = ctx.clock.now();
    for (let attempt = 1; ; attempt++) {
      const result = await poll(ctx, w, attempt, startedAt);
      if (result.holds) return { response: result.response, attempts: attempt };
      ctx.progress(`poll ${attempt}: ${result.seen}`);
      if (ctx.clock.now() - startedAt + interval > timeout) {
        throw new StepError(
          `condition did not hold within ${String(w.timeout ?? '5m')}; last seen: ${result.seen}`,
          {
            hint: 'raise `timeout`, or check the service it waits for',
          },
        );
      }
      await ctx.clock.sleep(interval, ctx.signal);
    }
  },
  reconcile: () => Promise.resolve({ status: 'not-done' }),
});
