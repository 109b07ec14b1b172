/**
 * How long things take in the sandbox. `realistic` follows the reference (dpm-api.md §7, §14): a 2 s poll, a 2 s
 * start delay, coordinator steps of seconds, a 5 s / 2 s Disconnect linger. `fast` keeps most pauses in the
 * milliseconds so that a test runs a whole onboarding well under a second, with the same ordering; the pauses that
 * interact keep the reference's ratios (a peer tolerates a coordinator that is down for two retry intervals, about
 * 600 ms; the long Disconnect linger outlasts one retry interval, so a peer that backed off during a coordinator
 * restart still sees the Disconnect).
 */
export interface Timings {
  /** after the 202, before the invitations go out */
  inviteDelayMs: number;
  /** after the invitations, before the coordinator's state machine starts (its init window answers 503) */
  coordinatorStartDelayMs: number;
  /** a peer's pause between polls of the coordinator */
  peerPollMs: number;
  /** a peer's work on one step (signing, uploading) */
  peerStepMs: number;
  /** the coordinator's Canton work on one step */
  coordinatorStepMs: number;
  /** Disconnect linger at Complete: Onboarding/Contracts/Dars (long) and the others (short) */
  lingerLongMs: number;
  lingerShortMs: number;
  /** a peer's pause after a poll that could not reach the coordinator (3 in a row fail the peer) */
  peerTransportRetryMs: number;
  /** a peer's pause after a poll the coordinator answered 503 (4 in a row fail the peer) */
  peerUnavailableRetryMs: number;
  /** a peer's pause between attempts to notify a decline */
  declineRetryMs: number;
  /** the background cache write after a live /decentralized-parties read */
  cacheWriteMs: number;
  /** resolving other members' owner keys after a cache write */
  ownerKeysMs: number;
  /** one simulated Noise round trip */
  meshLatencyMs: number;
  /** how often a waiting coordinator re-checks its gate */
  gateTickMs: number;
  /** the party cache's automatic refresh after a node starts */
  bootRefreshMs: number;
}

export type ProfileName = 'fast' | 'realistic';

export const PROFILES: Record<ProfileName, Timings> = {
  fast: {
    inviteDelayMs: 2,
    coordinatorStartDelayMs: 8,
    peerPollMs: 4,
    peerStepMs: 2,
    coordinatorStepMs: 3,
    lingerLongMs: 320,
    lingerShortMs: 130,
    peerTransportRetryMs: 300,
    peerUnavailableRetryMs: 25,
    declineRetryMs: 8,
    cacheWriteMs: 2,
    ownerKeysMs: 10,
    meshLatencyMs: 0,
    gateTickMs: 2,
    bootRefreshMs: 20,
  },
  realistic: {
    inviteDelayMs: 200,
    coordinatorStartDelayMs: 2000,
    peerPollMs: 2000,
    peerStepMs: 1000,
    coordinatorStepMs: 3000,
    lingerLongMs: 5000,
    lingerShortMs: 2000,
    peerTransportRetryMs: 5000,
    peerUnavailableRetryMs: 5000,
    declineRetryMs: 2000,
    cacheWriteMs: 200,
    ownerKeysMs: 1500,
    meshLatencyMs: 20,
    gateTickMs: 250,
    bootRefreshMs: 5000,
  },
};

/**
 * The token services' side of a profile: the Bitcoin chain's block interval (6 confirmations take 6 blocks), the
 * attestors' delays and the capacity model. `fast`: a mint within about two seconds, no latency and no limit.
 * `realistic`: the reference's ~10-minute blocks (6 confirmations ≈ an hour), 60–120 s of attestor processing, a
 * few seconds per transfer and ~500 transfers per 10 minutes. The rewards API's field names do not depend on it.
 */
export interface TokenProfile {
  blockIntervalMs: number;
  attestorProcessingMs: number;
  burnDelayMs: number;
  submitLatencyMs: number;
  /** transactions per window; null = unlimited */
  transferLimit: number | null;
  transferWindowMs: number;
}

export const TOKEN_PROFILES: Record<ProfileName, TokenProfile> = {
  fast: {
    blockIntervalMs: 250,
    attestorProcessingMs: 100,
    burnDelayMs: 300,
    submitLatencyMs: 0,
    transferLimit: null,
    transferWindowMs: 600_000,
  },
  realistic: {
    blockIntervalMs: 600_000,
    attestorProcessingMs: 90_000,
    burnDelayMs: 120_000,
    submitLatencyMs: 3_000,
    transferLimit: 500,
    transferWindowMs: 600_000,
  },
};

/** The longest time scale `sandbox up --time-scale` accepts: a factor above 1 slows the sandbox down. */
export const MAX_TIME_SCALE = 10;

/**
 * A profile with every duration multiplied by `scale` (rounded to whole milliseconds), so that a test keeps the
 * realistic profile's order of events in a fraction of its time; counts (the transfer limit) stay as they are.
 */
export function scaleTimings<T extends object>(timings: T, scale: number): T {
  if (scale === 1) return timings;
  return Object.fromEntries(
    Object.entries(timings).map(([key, value]) => [
      key,
      key.endsWith('Ms') && typeof value === 'number' ? Math.round(value * scale) : value,
    ]),
  ) as T;
}
