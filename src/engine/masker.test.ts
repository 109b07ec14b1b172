import { describe, expect, it } from 'vitest';
import { Masker, secretForms } from './masker.js';

const SECRET = 'p@ss word/+"\\é!';

describe('Masker.mask', () => {
  it('masks the secret and each of its encoded forms', () => {
    const masker = new Masker();
    masker.add(SECRET);
    const forms = {
      raw: SECRET,
      base64: Buffer.from(SECRET).toString('base64'),
      base64url: Buffer.from(SECRET).toString('base64url'),
      url: encodeURIComponent(SECRET),
      form: new URLSearchParams({ s: SECRET }).toString().slice(2),
      json: JSON.stringify(SECRET).slice(1, -1),
    };
    // the test means something only if the forms really differ from each other
    expect(new Set(Object.values(forms)).size).toBe(6);
    for (const [name, form] of Object.entries(forms)) {
      expect(masker.mask(`before ${form} after`), name).toBe('before *** after');
    }
  });

  it('masks secrets inside a JSON document and an Authorization header', () => {
    const masker = new Masker();
    masker.add('hunter2"x');
    const body = JSON.stringify({ password: 'hunter2"x', user: 'alice' });
    expect(masker.mask(body)).toBe('{"password":"***","user":"alice"}');
    masker.add('alice:s3cr3t');
    const header = `Basic ${Buffer.from('alice:s3cr3t').toString('base64')}`;
    expect(masker.mask(header)).toBe('Basic ***');
  });

  it('masks every occurrence, and leaves text without secrets as it is', () => {
    const masker = new Masker();
    expect(masker.mask('nothing registered')).toBe('nothing registered');
    masker.add('tok');
    expect(masker.mask('tok tok,tok')).toBe('*** ***,***');
    expect(masker.mask('clean')).toBe('clean');
  });

  it('masks a secret that contains another one whole', () => {
    const masker = new Masker();
    masker.add('abc');
    masker.add('xxabcxx');
    expect(masker.mask('[xxabcxx] [abc]')).toBe('[***] [***]');
  });

  it('leaves no character visible where two secrets overlap', () => {
    const masker = new Masker();
    masker.add('abcd');
    masker.add('cdef');
    expect(masker.mask('>abcdef<')).toBe('>***<');
    expect(masker.mask('>cdefab abcd<')).toBe('>***ab ***<');
  });

  it('treats regular-expression characters literally', () => {
    const masker = new Masker();
    masker.add('a.b*c');
    expect(masker.mask('a.b*c axbbbc')).toBe('*** axbbbc');
  });

  it('ignores empty strings and counts distinct secrets', () => {
    const masker = new Masker();
    masker.add('');
    expect(masker.size).toBe(0);
    expect(masker.mask('anything')).toBe('anything');
    masker.add('one');
    masker.add('one');
    masker.add('two');
    expect(masker.size).toBe(2);
  });

  it('lists a form once when encodings coincide', () => {
    expect(secretForms('abc')).toEqual(['abc', 'YWJj', '616263']);
  });

  it('masks the hex of a secret, and its base64 wherever it sits inside a longer base64 text', () => {
    const secret = 'client-s3cret-value';
    const masker = new Masker();
    masker.add(secret);
    const hex = Buffer.from(secret).toString('hex');
    expect(masker.mask(`dump ${hex} end`)).toBe('dump *** end');
    expect(masker.mask(`DUMP ${hex.toUpperCase()}`)).toBe('DUMP ***');
    // a Basic header's client:secret, at each of the three byte offsets the secret can start at
    for (const client of ['ab', 'abc', 'abcd']) {
      for (const alphabet of ['base64', 'base64url'] as const) {
        const header = Buffer.from(`${client}:${secret}`).toString(alphabet);
        const masked = masker.mask(`Basic ${header}`);
        expect(masked, `${client} ${alphabet}`).toContain('***');
        // what is left around the mask is the client's part, a character or two that mix both, and padding
        expect(masked.replace('Basic ', '').replace('***', '').length).toBeLessThanOrEqual(client.length + 6);
      }
    }
    // unpadded base64 of the secret alone
    expect(masker.mask(Buffer.from(secret).toString('base64').replace(/=+$/, ''))).toBe('***');
  });

  it('hides the userinfo of every URL, with no secret registered; a PostgreSQL URL keeps its user', () => {
    const masker = new Masker();
    expect(masker.mask('GET https://alice:pa55w0rd@idp.example/realms/x failed')).toBe(
      'GET https://***@idp.example/realms/x failed',
    );
    expect(masker.mask('token https://ghp_abcdefgh@github.com/o/r.git')).toBe(
      'token https://***@github.com/o/r.git',
    );
    // the last @ of the authority ends the userinfo, as URL parsers read it
    expect(masker.mask('https://u:p@ss@host/x')).toBe('https://***@host/x');
    expect(masker.mask('postgres://ledgerbook:hunter22@db:5432/x')).toBe(
      'postgres://ledgerbook:***@db:5432/x',
    );
    expect(masker.mask('postgres://ledgerbook:***@db/x')).toBe('postgres://ledgerbook:***@db/x');
    // not a userinfo: an @ in a path or query, an e-mail address, JSON around a URL
    for (const text of [
      'https://host/users/@alice',
      'https://host/?to=a@b.c',
      'mail alice@example.com',
      '{"url":"https://host","who":"a@b"}',
    ])
      expect(masker.mask(text)).toBe(text);
  });
});

describe('Masker.maskDeep', () => {
  it('masks string values in nested objects and arrays, never keys, without changing the input', () => {
    const masker = new Masker();
    masker.add('s3cr3t');
    const input = {
      url: 'https://idp/token?client_secret=s3cr3t',
      list: ['a', 's3cr3t', 3, null, true, { inner: 'x s3cr3t y' }],
      s3cr3t: 'as a key',
      n: 42,
    };
    const copy = structuredClone(input);
    expect(masker.maskDeep(input)).toEqual({
      url: 'https://idp/token?client_secret=***',
      list: ['a', '***', 3, null, true, { inner: 'x *** y' }],
      s3cr3t: 'as a key',
      n: 42,
    });
    expect(input).toEqual(copy);
  });

  it('leaves the values of structural keys alone', () => {
    const masker = new Masker();
    masker.add('step-done');
    expect(
      masker.maskDeep(
        { type: 'step-done', message: 'step-done!', inner: [{ type: 'step-done' }] },
        new Set(['type']),
      ),
    ).toEqual({ type: 'step-done', message: '***!', inner: [{ type: 'step-done' }] });
  });

  it('copes with cycles and leaves class instances alone', () => {
    const masker = new Masker();
    masker.add('k');
    const node: Record<string, unknown> = { name: 'k' };
    node.self = node;
    const date = new Date(0);
    const masked = masker.maskDeep({ node, date });
    expect(masked.node.name).toBe('***');
    expect(masked.node.self).toBe(masked.node);
    expect(masked.date).toBe(date);
  });

  it('returns the value itself when nothing in it is masked', () => {
    const value = { a: ['b'], url: 'https://host/x' };
    expect(new Masker().maskDeep(value)).toBe(value);
    const masker = new Masker();
    masker.add('s3cr3t-value');
    expect(masker.maskDeep(value)).toBe(value);
  });

  it('hides URL credentials in values with no secret registered', () => {
    expect(new Masker().maskDeep({ seen: ['GET https://u:p4ss@h/x'] })).toEqual({
      seen: ['GET https://***@h/x'],
    });
  });
});
