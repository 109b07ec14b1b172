import { describe, expect, it } from 'vitest';
import { idSegment, pathSegment } from './path.js';

describe('values in URL paths', () => {
  it('cannot add a segment, a query or a fragment', () => {
    const base = 'http://127.0.0.1:1/v1/accounts/';
    expect(new URL(base + pathSegment('../admin?x=1#y')).pathname).toBe(
      '/v1/accounts/..%2Fadmin%3Fx%3D1%23y',
    );
    expect(idSegment('alice::1220ab')).toBe('alice::1220ab');
    expect(idSegment('a/b::c')).toBe('a%2Fb::c');
  });

  it.each(['', '.', '..'])('refuses %j, which no encoding keeps from changing the path', (value) => {
    expect(() => pathSegment(value)).toThrow(/cannot name anything in a request's path/);
    expect(() => idSegment(value)).toThrow(/cannot name anything in a request's path/);
  });

  it('keeps dots inside a value', () => {
    expect(pathSegment('a..b')).toBe('a..b');
    expect(pathSegment('...')).toBe('...');
  });
});
