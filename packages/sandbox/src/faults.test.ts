import { describe, expect, it } from 'vitest';
import { FaultBook, validateFaults } from './faults.js';

describe('validateFaults', () => {
  it('accepts every kind of the brief', () => {
    const { faults, problems } = validateFaults([
      { kind: 'decline', node: 'node3', workflow: 'Onboarding' },
      { kind: 'unreachable', node: 'node3' },
      { kind: 'vet-fails', node: 'node3' },
      { kind: 'restart', node: 'node1', at: { workflow: 'Onboarding', step: 'SignDns' }, downMs: 500 },
      { kind: 'latency', node: 'node2', ms: 200 },
      { kind: 'expire-tokens', node: 'node1', count: 1 },
      { kind: 'forbid', count: 1 },
      { kind: 'http-error', node: 'node1', method: 'GET', route: '/workflows', status: 503, count: 1 },
    ]);
    expect(problems).toEqual([]);
    expect(faults).toHaveLength(8);
  });

  it('reports a missing required field with an example', () => {
    const { problems } = validateFaults([{ kind: 'latency' }]);
    expect(problems).toEqual([
      {
        pointer: '/0',
        message: 'a latency fault needs `ms`',
        hint: 'for example { kind: latency, node: node2, ms: 200 }',
      },
    ]);
  });

  it('accepts a single fault (the admin API body)', () => {
    expect(validateFaults({ kind: 'unreachable', node: 'node2' }).faults).toEqual([
      { kind: 'unreachable', node: 'node2' },
    ]);
  });
});

describe('FaultBook', () => {
  it('spends counted faults and removes them at zero', () => {
    const book = new FaultBook([{ kind: 'expire-tokens', node: 'node1', count: 2 }]);
    expect(book.takeExpiredToken('node2')).toBe(false);
    expect(book.takeExpiredToken('node1')).toBe(true);
    expect(book.list()[0]?.remaining).toBe(1);
    expect(book.takeExpiredToken('node1')).toBe(true);
    expect(book.takeExpiredToken('node1')).toBe(false);
    expect(book.list()).toEqual([]);
  });

  it('keeps uncounted faults until cleared', () => {
    const book = new FaultBook([{ kind: 'forbid' }]);
    for (let i = 0; i < 5; i++) expect(book.takeForbid(`node${i}`, 'GET', '/workflows')).toBe(true);
    book.clear();
    expect(book.takeForbid('node1', 'GET', '/workflows')).toBe(false);
  });

  it('matches forbid faults by method and route when they name them', () => {
    const book = new FaultBook([{ kind: 'forbid', node: 'node1', method: 'PUT', route: '/network-config' }]);
    expect(book.takeForbid('node1', 'GET', '/network-config')).toBe(false);
    expect(book.takeForbid('node2', 'PUT', '/network-config')).toBe(false);
    expect(book.takeForbid('node1', 'PUT', '/network-config')).toBe(true);
  });

  it('matches http-error faults by node, method, route and phase', () => {
    const book = new FaultBook([
      { kind: 'http-error', node: 'node1', method: 'POST', route: '/kick', status: 502, phase: 'after' },
    ]);
    expect(book.takeHttpError('node1', 'POST', '/kick', 'before')).toBeUndefined();
    expect(book.takeHttpError('node1', 'GET', '/kick', 'after')).toBeUndefined();
    expect(book.takeHttpError('node2', 'POST', '/kick', 'after')).toBeUndefined();
    expect(book.takeHttpError('node1', 'POST', '/kick', 'after')).toBe(502);
  });

  it('fires a restart-at fault once, and sums latency', () => {
    const book = new FaultBook([
      { kind: 'restart', node: 'node1', at: { workflow: 'Kick', step: 'SubmitKick' } },
      { kind: 'latency', ms: 10 },
      { kind: 'latency', node: 'node2', ms: 5 },
    ]);
    expect(book.takeRestartAt('node1', 'Kick', 'ExportState')).toBeUndefined();
    expect(book.takeRestartAt('node1', 'Kick', 'SubmitKick')).toEqual({ downMs: 500 });
    expect(book.takeRestartAt('node1', 'Kick', 'SubmitKick')).toBeUndefined();
    expect(book.latencyMs('node1')).toBe(10);
    expect(book.latencyMs('node2')).toBe(15);
  });
});
