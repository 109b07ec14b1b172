import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import type { Target } from '../../playbook/target.js';
import { copyTargetYaml } from './fork-target.js';

const original = {
  file: '/ops/mainnet.yaml',
  name: 'mainnet',
  network: 'mainnet',
  auth: {
    issuer: 'https://idp.example/realms/ops',
    clientId: 'ops-cli',
    grant: 'password',
    username: 'alice',
    password: { secret: 'MAINNET_PASSWORD' },
  },
  nodes: {
    alpha: {
      participantId: 'alpha::1220aa',
      dpm: 'https://dpm.alpha.example',
      ledger: 'https://l.alpha.example',
      party: 'op::1220aa',
    },
    beta: { participantId: 'beta::1220bb', dpm: 'https://dpm.beta.example', controlled: false },
  },
  instrument: { admin: 'cbtc::1220cc', id: 'CBTC' },
  parties: {
    registrar: 'cbtc::1220cc',
    treasury: {
      party: 'treasury::1220aa',
      node: 'alpha',
      auth: {
        issuer: 'https://idp.example/realms/ops',
        clientId: 'treasury',
        grant: 'client_credentials',
        clientSecret: { secret: 'TREASURY_SECRET' },
      },
    },
  },
  secrets: { MAINNET_PASSWORD: { env: 'MAINNET_PASSWORD' }, TREASURY_SECRET: { file: '/vault/treasury' } },
} as unknown as Target;

const copyOfSandbox = stringify({
  name: 'sandbox',
  network: 'devnet',
  auth: {
    issuer: 'http://127.0.0.1:7701/auth/realms/ledgerbook',
    clientId: 'ledgerbook-cli',
    grant: 'password',
    username: 'operator1',
    password: { secret: 'SANDBOX_OPERATOR_PASSWORD' },
  },
  nodes: {
    alpha: {
      participantId: 'alpha::1220aa',
      dpm: 'http://127.0.0.1:7702',
      ledger: 'http://127.0.0.1:7703',
      party: 'operator1::1220aa',
    },
    beta: {
      participantId: 'beta::1220bb',
      dpm: 'http://127.0.0.1:7704',
      ledger: 'http://127.0.0.1:7705',
      party: 'operator2::1220bb',
      auth: {
        issuer: 'http://127.0.0.1:7701/auth/realms/ledgerbook',
        clientId: 'ledgerbook-cli',
        grant: 'password',
        username: 'operator2',
        password: { secret: 'SANDBOX_OPERATOR2_PASSWORD' },
      },
    },
  },
  services: { registry: 'http://127.0.0.1:7706' },
  instrument: { admin: 'cbtc-network::1220dd', id: 'CBTC' },
  parties: { minter: { party: 'minter::1220aa', node: 'alpha' } },
  secrets: { SANDBOX_OPERATOR_PASSWORD: { file: '/state/secrets/operator-password' } },
});

interface WrittenNode {
  participantId?: string;
  party?: string;
  dpm?: string;
  ledger?: string;
  controlled?: boolean;
  auth?: { username?: string };
}

interface Written {
  name: string;
  network: string;
  auth: { issuer: string };
  nodes: Record<string, WrittenNode>;
  services: unknown;
  instrument: unknown;
  parties: unknown;
  secrets: unknown;
}

describe('the target of a fork', () => {
  const written = parse(copyTargetYaml(original, copyOfSandbox, '/state')) as Written;
  const node = (name: string): WrittenNode => written.nodes[name] ?? {};

  it('keeps the original’s names: network, nodes, participant ids, node parties, instrument, named parties', () => {
    expect(written.name).toBe('mainnet-fork');
    expect(written.network).toBe('mainnet');
    expect(Object.keys(written.nodes)).toEqual(['alpha', 'beta']);
    expect(node('alpha')).toMatchObject({ participantId: 'alpha::1220aa', party: 'op::1220aa' });
    expect(node('beta').party).toBeUndefined();
    expect(written.instrument).toEqual({ admin: 'cbtc::1220cc', id: 'CBTC' });
    expect(written.parties).toEqual({
      registrar: 'cbtc::1220cc',
      treasury: { party: 'treasury::1220aa', node: 'alpha' },
    });
  });

  it('reaches the copy with the copy’s URLs, logins and secret files, and names none of the network’s', () => {
    expect(node('alpha')).toMatchObject({
      dpm: 'http://127.0.0.1:7702',
      ledger: 'http://127.0.0.1:7703',
    });
    expect(node('beta').auth?.username).toBe('operator2');
    expect(node('beta').controlled).toBeUndefined();
    expect(written.auth.issuer).toBe('http://127.0.0.1:7701/auth/realms/ledgerbook');
    expect(written.services).toEqual({ registry: 'http://127.0.0.1:7706' });
    expect(written.secrets).toEqual({
      SANDBOX_OPERATOR_PASSWORD: { file: '/state/secrets/operator-password' },
    });
    const text = JSON.stringify(written);
    for (const network of ['MAINNET_PASSWORD', 'TREASURY_SECRET', '/vault/treasury', 'idp.example'])
      expect(text).not.toContain(network);
  });
});
