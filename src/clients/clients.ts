/**
 * The typed clients a step receives from its context. The engine builds them from the target
 * (src/clients/factory.ts); steps never construct a client themselves. Every error leaving src/clients is a
 * ServiceError (src/errors.ts); the ledger's are LedgerErrors with their kind (src/clients/ledger-errors.ts).
 */
import type { BitcoinClient } from './bitcoin.js';
import type { DpmClient } from './dpm.js';
import type { FaucetClient } from './faucet.js';
import type { GatewayClient } from './gateway.js';
import type { HttpClient } from './http.js';
import type { LedgerClient } from './ledger.js';
import type { PartyLedger } from './party-ledger.js';
import type { RegistryClient } from './registry.js';
import type { RewardsClient } from './rewards.js';

export interface Clients {
  readonly http: HttpClient;
  /** the decentralized-party manager of a target node, by node name */
  dpm(node: string): DpmClient;
  /** the participant ledger (JSON Ledger API) of a target node, with the node's credentials */
  ledger(node: string): LedgerClient;
  /**
   * A party the target acts as (`parties.<name>: {party, node, auth?}`): its node's ledger with the party's own
   * credentials, or the node's.
   */
  party(name: string): PartyLedger;
  /** the token-standard registry of the target's instrument admin (`services.registry`, `instrument.admin`) */
  registry(): RegistryClient;
  /** the wrapped-token gateway (`services.gateway`) */
  gateway(): GatewayClient;
  /** the daily-rewards API (`services.rewards`) */
  rewards(): RewardsClient;
  /** the devnet faucet (`services.faucet`) */
  faucet(): FaucetClient;
  /** the sandbox's simulated Bitcoin chain (`services.bitcoin`) */
  bitcoin(): BitcoinClient;
  close(): Promise<void>;
}
