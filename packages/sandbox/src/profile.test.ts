import { describe, expect, it } from 'vitest';
import { PROFILES, TOKEN_PROFILES, scaleTimings } from './profile.js';

describe('scaleTimings', () => {
  it('multiplies every duration and keeps their order', () => {
    const scaled = scaleTimings(PROFILES.realistic, 0.1);
    expect(scaled.coordinatorStepMs).toBe(300);
    expect(scaled.peerPollMs).toBe(200);
    const order = (t: Record<string, number>): string[] =>
      Object.keys(t).sort((a, b) => (t[a] as number) - (t[b] as number) || a.localeCompare(b));
    expect(order(scaled as unknown as Record<string, number>)).toEqual(
      order(PROFILES.realistic as unknown as Record<string, number>),
    );
  });

  it('leaves counts alone', () => {
    const scaled = scaleTimings(TOKEN_PROFILES.realistic, 0.01);
    expect(scaled.transferLimit).toBe(500);
    expect(scaled.transferWindowMs).toBe(6000);
    expect(scaled.blockIntervalMs).toBe(6000);
  });

  it('is the profile itself at 1', () => {
    expect(scaleTimings(PROFILES.fast, 1)).toBe(PROFILES.fast);
  });
});
