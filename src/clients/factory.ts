/**
 * Builds the clients a run's steps receive, from the target and the run's secrets. One token provider per
 * distinct identity (issuer, client, grant, user), shared by every client that uses it; every token it obtains is
 * handed to `onToken` so the run's masker hides it. A client is built on first use and kept for the run; asking
 * for one the target does not configure is an error that names the key to add. The run's ledger clients share
 * their reads (read-cache.ts): one snapshot of each participant's ledger end, dropped by every write of the run.
 */
import { Agent } from 'undici';
import { StepError } from '../errors.js';
import type { Target } from '../playbook/target.js';
import type { TargetAuth } from '../playbook/target-schema.js';
import { TokenProvider, type Credentials } from './auth.js';
import { BitcoinClient } from './bitcoin.js';
import { DpmClient } from './dpm.js';
import { FaucetClient } from './faucet.js';
import { GatewayClient } from './gateway.js';
import { HttpService, createHttpClient, type TokenSource } from './http.js';
import type { Clients } from './clients.js';
import { LedgerClient } from './ledger.js';
import { PartyLedger } from './party-ledger.js';
import { ReadCache } from './read-cache.js';
import { RegistryClient } from './registry.js';
import { RewardsClient } from './rewards.js';

export interface ClientFactoryOptions {
  target: Target | undefined;
  secrets: Readonly<Record<string, string>>;
  onToken: (token: string) => void;
  timeoutMs?: number;
  /** the run's shared ledger reads; default: a new ReadCache for this run */
  reads?: ReadCache;
}

type ServiceName = 'gateway' | 'registry' | 'rewards' | 'faucet' | 'bitcoin';

const SERVICE_WORDS: Record<ServiceName, string> = {
  gateway: 'the wrapped-token gateway',
  registry: 'the token-standard registry',
  rewards: 'the daily-rewards API',
  faucet: 'the devnet faucet',
  bitcoin: "the sandbox's Bitcoin chain",
};

export function createClients(options: ClientFactoryOptions): Clients {
  const target = options.target;
  const dispatcher = new Agent({ connections: 32, keepAliveTimeout: 10_000 });
  const providers = new Map<string, TokenProvider>();
  const built = new Map<string, unknown>();
  const timeout = options.timeoutMs ? { timeoutMs: options.timeoutMs } : {};
  const reads = options.reads ?? new ReadCache();

  /** One client per key for the run. */
  const once = <T>(key: string, build: () => T): T => {
    if (!built.has(key)) built.set(key, build());
    return built.get(key) as T;
  };

  const secret = (name: string): string => {
    const value = options.secrets[name];
    // prepare() resolves every secret a target names before a run starts; reaching this is a bug.
    if (value === undefined) throw new StepError(`secret '${name}' was not resolved before the run`);
    return value;
  };

  const tokenSource = (auth: TargetAuth | undefined): TokenSource | undefined => {
    if (!auth) return undefined;
    const key = [auth.issuer, auth.clientId, auth.grant, auth.username ?? ''].join('\n');
    let provider = providers.get(key);
    if (!provider) {
      const credentials: Credentials = {
        issuer: auth.issuer,
        clientId: auth.clientId,
        grant: auth.grant,
        ...(auth.username ? { username: auth.username } : {}),
        ...(auth.password ? { password: secret(auth.password.secret) } : {}),
        ...(auth.clientSecret ? { clientSecret: secret(auth.clientSecret.secret) } : {}),
        ...(auth.scope ? { scope: auth.scope } : {}),
      };
      provider = new TokenProvider(credentials, { onToken: options.onToken });
      providers.set(key, provider);
    }
    return provider;
  };

  const node = (name: string): NonNullable<Target['nodes']>[string] => {
    const found = target?.nodes?.[name];
    if (!found) {
      throw new StepError(`the target has no node '${name}'`, {
        hint: `nodes of this target: ${Object.keys(target?.nodes ?? {}).join(', ') || 'none'}`,
      });
    }
    return found;
  };

  const ledgerUrl = (name: string): string => {
    const url = node(name).ledger;
    if (url === undefined) {
      throw new StepError(`node '${name}' has no ledger URL`, {
        hint: `add nodes.${name}.ledger (the base URL of its participant's JSON Ledger API) to the target`,
      });
    }
    return url;
  };

  const ledgerClient = (service: string, baseUrl: string, auth: TokenSource | undefined): LedgerClient =>
    new LedgerClient(new HttpService({ service, baseUrl, auth, dispatcher, ...timeout }), {
      auth,
      dispatcher,
      reads,
    });

  const serviceUrl = (name: ServiceName): string => {
    const url = target?.services?.[name];
    if (url === undefined) {
      throw new StepError(`the target names no ${name} service (${SERVICE_WORDS[name]})`, {
        hint: `add services.${name} (its base URL) to the target`,
      });
    }
    return url;
  };

  const plain = (name: ServiceName): HttpService =>
    new HttpService({ service: name, baseUrl: serviceUrl(name), dispatcher, ...timeout });

  const ledger = (name: string): LedgerClient =>
    once(`ledger:${name}`, () =>
      ledgerClient(`ledger:${name}`, ledgerUrl(name), tokenSource(node(name).auth ?? target?.auth)),
    );

  return {
    http: createHttpClient(),
    dpm(name) {
      return once(`dpm:${name}`, () => {
        const config = node(name);
        return new DpmClient(
          new HttpService({
            service: `dpm:${name}`,
            baseUrl: config.dpm,
            auth: tokenSource(config.auth ?? target?.auth),
            dispatcher,
            ...timeout,
          }),
        );
      });
    },
    ledger,
    party(name) {
      return once(`party:${name}`, () => {
        const declared = target?.parties?.[name];
        if (declared === undefined) {
          throw new StepError(`the target has no party '${name}'`, {
            hint: `add parties.${name}: {party: <party id>, node: <the node hosting it>} to the target (parties: ${
              Object.keys(target?.parties ?? {}).join(', ') || 'none'
            })`,
          });
        }
        if (typeof declared === 'string') {
          throw new StepError(`party '${name}' is only named in the target: ledgerbook cannot act as it`, {
            hint: `to act as it, write parties.${name}: {party: ${declared}, node: <the node hosting it>} (and auth: when the node's credentials may not act as it)`,
          });
        }
        const client =
          declared.auth === undefined
            ? ledger(declared.node)
            : ledgerClient(
                `ledger:${declared.node} as ${name}`,
                ledgerUrl(declared.node),
                tokenSource(declared.auth),
              );
        return new PartyLedger(client, declared.party);
      });
    },
    registry() {
      return once('registry', () => {
        const instrument = target?.instrument;
        if (instrument === undefined) {
          throw new StepError('the target names no instrument, whose admin runs the registry', {
            hint: 'add instrument: {admin: <the registrar party>, id: <e.g. CBTC>} to the target',
          });
        }
        return new RegistryClient(plain('registry'), instrument.admin);
      });
    },
    gateway() {
      return once('gateway', () => new GatewayClient(plain('gateway')));
    },
    rewards() {
      return once('rewards', () => new RewardsClient(plain('rewards')));
    },
    faucet() {
      return once('faucet', () => new FaucetClient(plain('faucet')));
    },
    bitcoin() {
      return once('bitcoin', () => new BitcoinClient(plain('bitcoin')));
    },
    async close() {
      await dispatcher.close();
    },
  };
}

/**
 * Clients of a run that reaches no service (unit tests of steps): every client throws when asked for. Spread it
 * under the clients a test provides.
 */
export function offlineClients(): Clients {
  const none = (what: string) => () => {
    throw new StepError(`no ${what} in this run`);
  };
  return {
    http: { get: () => Promise.reject(new StepError('no http in this run')) },
    dpm: none('DPM client'),
    ledger: none('ledger client'),
    party: none('party client'),
    registry: none('registry client'),
    gateway: none('gateway client'),
    rewards: none('rewards client'),
    faucet: none('faucet client'),
    bitcoin: none('bitcoin client'),
    close: () => Promise.resolve(),
  };
}
