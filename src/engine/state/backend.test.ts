import { describe, expect, it } from 'vitest';
import { isPostgresUrl, maskStateUrl, recordedCommand, stateUrlSecrets } from './backend.js';

describe('connection strings never show their password', () => {
  it('masks the password of the user part and of query parameters', () => {
    expect(maskStateUrl('postgres://lb:s3cret-pass@db.example:5432/state')).toBe(
      'postgres://lb:***@db.example:5432/state',
    );
    expect(maskStateUrl('postgresql://lb@db/state?password=s3cret-pass&sslmode=require')).toBe(
      'postgresql://lb@db/state?password=***&sslmode=require',
    );
    expect(maskStateUrl('postgres://lb@db/state')).toBe('postgres://lb@db/state');
    // not a URL the parser takes: everything between :// and @ goes
    expect(maskStateUrl('postgres://lb:p@ss:word@[bad/state')).toBe('postgres://***@[bad/state');
  });

  it('finds the secrets to register with the masker, decoded', () => {
    expect(stateUrlSecrets('postgres://lb:p%40ss-word-1@db/state?sslpassword=key-pass-22')).toEqual([
      'p@ss-word-1',
      'key-pass-22',
    ]);
    expect(stateUrlSecrets('postgres://lb@db/state')).toEqual([]);
  });

  it('masks connection strings in a recorded command line, in both flag forms', () => {
    expect(
      recordedCommand([
        'run',
        'p.yaml',
        '--state',
        'postgres://lb:s3cret-pass@db/s',
        '--state=postgres://lb:other-pass-1@db/s',
      ]),
    ).toBe('ledgerbook run p.yaml --state postgres://lb:***@db/s --state=postgres://lb:***@db/s');
    expect(isPostgresUrl('PostgreSQL://x')).toBe(true);
    expect(isPostgresUrl('.ledgerbook')).toBe(false);
  });
});
