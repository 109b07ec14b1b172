/**
 * Memory of a long fan-out. V8 collects the old generation only when it has grown to a multiple of what survived
 * the last collection (up to four times), so a step that works through 100,000 items — each leaving a parsed
 * request and response behind — would end at several times the memory it actually keeps. Every 500 items of a big
 * step, when the heap has grown by half since the last full collection, the engine asks for one: the peak then
 * follows what the run keeps. A full collection of a few tens of MB takes tens of milliseconds, once every few
 * seconds of a busy fan-out.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Steps with fewer items leave the collector alone. */
export const GOVERNED_ITEMS = 10_000;
const EVERY = 500;
/** a collection when the heap has grown by half since the last one */
const GROWTH = 1.5;

let collect: (() => void) | undefined;

/** V8's full collection, exposed once for this process (the flag `--expose-gc` set at run time). */
function collector(): () => void {
  if (collect === undefined) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  return collect;
}

export class HeapGovernor {
  private items = 0;
  private afterLast = 0;

  /** One more item of a step of `total` items is done. */
  tick(total: number): void {
    if (total < GOVERNED_ITEMS || ++this.items % EVERY !== 0) return;
    const used = process.memoryUsage().heapUsed;
    if (this.afterLast !== 0 && used < this.afterLast * GROWTH) return;
    collector()();
    this.afterLast = process.memoryUsage().heapUsed;
  }
}
