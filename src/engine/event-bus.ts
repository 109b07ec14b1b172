import { EVENT_STRUCTURE, type EventInput, type EventListener, type LedgerbookEvent } from './events.js';
import type { Masker } from './masker.js';

/** Stamps, masks and delivers events to every reporter. Nothing reaches a reporter unmasked. */
export class EventBus {
  private readonly listeners: EventListener[] = [];

  constructor(
    private readonly masker: Masker,
    private readonly now: () => number = Date.now,
  ) {}

  on(listener: EventListener): void {
    this.listeners.push(listener);
  }

  emit(input: EventInput): void {
    const event = this.masker.maskDeep<LedgerbookEvent>(
      { ...input, time: new Date(this.now()).toISOString() },
      EVENT_STRUCTURE,
    );
    for (const listener of this.listeners) listener(event);
  }
}
