import { describe, expect, it } from 'vitest';
import { UsageError } from '../../errors.js';
import { checkStateUrl, isPostgresUrl, maskStateUrl, recordedCommand, stateUrlSecrets } from './backend.js';

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
    expect(maskStateUrl('postgres://db:abc/state?sslmode=require&password=s3cret-pass&sslpassword=x')).toBe(
      'postgres://db:abc/state?sslmode=require&password=***&sslpassword=***',
    );
    // a parameter given twice: both values are secrets
    expect(stateUrlSecrets('postgres://db/s?password=first-pass&password=second-pass')).toEqual([
      'first-pass',
      'second-pass',
    ]);
  });

  it('a port that is not a number is a usage error (exit 64) naming it, the password masked', () => {
    for (const spec of [
      'postgres://lb:s3cret-pass@db:abc/s',
      'postgres://lb@db:99999/s',
      'postgres://[::1]:x/s',
    ]) {
      const error = (() => {
        try {
          checkStateUrl(spec);
        } catch (e) {
          return e;
        }
        return undefined;
      })() as UsageError;
      expect(error, spec).toBeInstanceOf(UsageError);
      expect(error.exitCode).toBe(64);
      expect(error.message).toMatch(/the port '[^']+' of postgres:\/\//);
      expect(error.message).not.toContain('s3cret-pass');
    }
    for (const spec of [
      'postgres://lb:pw@db:5432/s',
      'postgres://lb@db/s',
      'postgres://[::1]:5432/s',
      'postgres://lb@/s?host=/tmp',
      'postgres:///s',
    ])
      expect(() => checkStateUrl(spec), spec).not.toThrow();
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
    // and no other URL keeps its credentials (an --input value)
    expect(
      recordedCommand(['run', 'p.yaml', '--input', 'hook=https://bot:t0ken-value@hooks.example/x']),
    ).toBe('ledgerbook run p.yaml --input hook=https://***@hooks.example/x');
    expect(isPostgresUrl('PostgreSQL://x')).toBe(true);
    expect(isPostgresUrl('.ledgerbook')).toBe(false);
  });
});
