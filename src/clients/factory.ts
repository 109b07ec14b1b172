/**
 * Builds the clients a run's steps receive, from the target and the run's secrets. One token provider per
 * distinct identity (issuer, client, grant, user), shared by every node that uses it; every token it obtains is
 * handed to `onToken` so the run's masker hides it.
 */
import { Agent } from 'undici';
import { StepError } from '../errors.js';
import type { Target } from '../playbook/target.js';
import type { TargetAuth } from '../playbook/target-schema.js';
import { TokenProvider, type Credentials } from './auth.js';
import { DpmClient } from './dpm.js';
import { HttpService, createHttpClient, type TokenSource } from './http.js';
import type { Clients } from './index.js';

export interface ClientFactoryOptions {
  target: Target | undefined;
  secrets: Readonly<Record<string, string>>;
  onToken: (token: string) => void;
  timeoutMs?: number;
}

export function createClients(options: ClientFactoryOptions): Clients {
  const dispatcher = new Agent({ connections: 32, keepAliveTimeout: 10_000 });
  const providers = new Map<string, TokenProvider>();
  const dpmClients = new Map<string, DpmClient>();

  const tokenSource = (auth: TargetAuth | undefined): TokenSource | undefined => {
    if (!auth) return undefined;
    const credentials: Credentials = {
      issuer: auth.issuer,
      clientId: auth.clientId,
      grant: auth.grant,
      ...(auth.username ? { username: auth.username } : {}),
      ...(auth.password ? { password: secret(auth.password.secret) } : {}),
      ...(auth.clientSecret ? { clientSecret: secret(auth.clientSecret.secret) } : {}),
      ...(auth.scope ? { scope: auth.scope } : {}),
    };
    const key = [auth.issuer, auth.clientId, auth.grant, auth.username ?? ''].join('\n');
    let provider = providers.get(key);
    if (!provider) {
      provider = new TokenProvider(credentials, { onToken: options.onToken });
      providers.set(key, provider);
    }
    return provider;
  };

  const secret = (name: string): string => {
    const value = options.secrets[name];
    // prepare() resolves every secret a target names before a run starts; reaching this is a bug.
    if (value === undefined) throw new StepError(`secret '${name}' was not resolved before the run`);
    return value;
  };

  const node = (name: string): NonNullable<Target['nodes']>[string] => {
    const found = options.target?.nodes?.[name];
    if (!found) {
      throw new StepError(`the target has no node '${name}'`, {
        hint: `nodes of this target: ${Object.keys(options.target?.nodes ?? {}).join(', ') || 'none'}`,
      });
    }
    return found;
  };

  return {
    http: createHttpClient(),
    dpm(name) {
      let client = dpmClients.get(name);
      if (!client) {
        const config = node(name);
        client = new DpmClient(
          new HttpService({
            service: `dpm:${name}`,
            baseUrl: config.dpm,
            auth: tokenSource(config.auth ?? options.target?.auth),
            dispatcher,
            ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
          }),
        );
        dpmClients.set(name, client);
      }
      return client;
    },
    async close() {
      await dispatcher.close();
    },
  };
}
