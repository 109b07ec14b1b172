/**
 * The published DPM sample bodies (test/fixtures/specs/dpm-mocks, a copy of ../shared/specs/dpm-mocks) against our wire schemas, as the reference's §13
 * classifies them: the faithful ones decode; the ones with listed deviations fail (or, where the deviation is
 * a field the server may omit, pass) in exactly the documented way, and decode once that deviation is undone.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PEER_INITIAL_STEP, WORKFLOW_STEPS, routeResponseSchemas } from '../../src/clients/dpm-wire.js';
import type { RouteKey, WorkflowKind } from '../../src/clients/dpm-wire.js';
import { wireProblems } from '../../src/clients/schema-check.js';
import type { WireProblem } from '../../src/clients/schema-check.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const mocksDir = path.resolve(repoRoot, 'test/fixtures/specs/dpm-mocks');

function load(file: string): unknown {
  const full = path.join(mocksDir, file);
  if (!existsSync(full)) {
    throw new Error(
      `DPM sample body ${file} not found in ${mocksDir}: the contract tests need test/fixtures/specs/dpm-mocks ` +
        '(the published fixtures, see its README); they do not skip without it',
    );
  }
  return JSON.parse(readFileSync(full, 'utf8')) as unknown;
}

function problems(route: RouteKey, body: unknown): Array<Pick<WireProblem, 'pointer' | 'keyword'>> {
  const schema = routeResponseSchemas[route];
  if (schema === undefined) throw new Error(`no response schema for ${route}`);
  return wireProblems(schema, body).map(({ pointer, keyword }) => ({ pointer, keyword }));
}

const missing = (...pointers: string[]) => pointers.map((pointer) => ({ pointer, keyword: 'required' }));

/** §13 rows marked "—": each file and the route it samples. */
const FAITHFUL: ReadonlyArray<readonly [string, RouteKey]> = [
  ['auth-config.json', 'GET /auth-config'],
  ['auth_status.json', 'GET /auth/status'],
  ['auth_test.json', 'POST /auth/test'],
  ['contracts_query.json', 'GET /contracts/query'],
  ['coupon-reassignment-delegation.json', 'GET /coupon-reassignment-delegation'],
  ['coupon-reassignment-delegation__cbtc-network.json', 'GET /coupon-reassignment-delegation'],
  ['coupon-reassignment-delegation__ibtc-admin.json', 'GET /coupon-reassignment-delegation'],
  ['credential-offers.json', 'GET /credential-offers'],
  ['governance_burn-requests.json', 'GET /governance/burn-requests'],
  ['governance_known-members.json', 'GET /governance/known-members'],
  ['governance_mint-requests.json', 'GET /governance/mint-requests'],
  ['governance_state.json', 'GET /governance/state'],
  ['governance_state__cbtc-mint-authority.json', 'GET /governance/state'],
  ['governance_state__cbtc-network.json', 'GET /governance/state'],
  ['governance_state__governance-core.json', 'GET /governance/state'],
  ['governance_state__ibtc-admin.json', 'GET /governance/state'],
  ['governance_transfer-instructions.json', 'GET /governance/transfer-instructions'],
  ['healthz.json', 'GET /healthz'],
  ['holdings.json', 'GET /holdings'],
  ['instruments.json', 'GET /instruments'],
  ['keys_status.json', 'GET /keys/status'],
  ['network-config.json', 'GET /network-config'],
  ['network-info.json', 'GET /network-info'],
  ['packages_compare-peers.json', 'GET /packages/compare-peers'],
  ['packages_vetted.json', 'GET /packages/vetted'],
  ['services_provider.json', 'GET /services/provider'],
  ['services_user.json', 'GET /services/user'],
  ['token-standard-contracts.json', 'POST /token-standard-contracts'],
  ['transfer-factories.json', 'GET /transfer-factories'],
  ['transfer-preapprovals.json', 'GET /transfer-preapprovals'],
  ['vaults.json', 'GET /vaults'],
];

const GOVERNANCE_CONFIRMATIONS = [
  'governance_confirmations.json',
  'governance_confirmations__cbtc-network.json',
  'governance_confirmations__governance-core.json',
  'governance_confirmations__ibtc-admin.json',
] as const;

/** §13 rows with a listed deviation; each has its own test below. */
const DEVIATING = [
  'decentralized-parties.json',
  'governance_chain-audit.json',
  ...GOVERNANCE_CONFIRMATIONS,
  'invitations.json',
  'node-config.json',
  'operator-info.json',
  'packages.json',
  'participants-status.json',
  'party-config.json',
  'workflows.json',
];

type Json = Record<string, unknown>;
const asObject = (value: unknown): Json => value as Json;
const listOf = (value: unknown, key: string): Json[] => asObject(value)[key] as Json[];

describe('DPM sample bodies (test/fixtures/specs/dpm-mocks)', () => {
  it('are all present and each one is classified here', () => {
    expect(existsSync(mocksDir), `expected the DPM sample bodies in ${mocksDir}`).toBe(true);
    const classified = new Set([...FAITHFUL.map(([file]) => file), ...DEVIATING]);
    const onDisk = readdirSync(mocksDir).filter((f) => f.endsWith('.json'));
    expect(onDisk.filter((f) => !classified.has(f))).toEqual([]);
    expect([...classified].filter((f) => !onDisk.includes(f))).toEqual([]);
  });

  describe('faithful samples decode', () => {
    it.each(FAITHFUL)('%s (%s)', (file, route) => {
      expect(problems(route, load(file))).toEqual([]);
    });
  });

  describe('samples with documented deviations', () => {
    it('decentralized-parties.json: capitalised `permission` is rejected, and is the only problem', () => {
      const body = load('decentralized-parties.json');
      const found = problems('GET /decentralized-parties', body);
      const participants = listOf(body, 'parties').flatMap((party, p) =>
        (party.participants as Json[]).map((_participant, i) => `/parties/${p}/participants/${i}/permission`),
      );
      expect(found).toContainEqual({ pointer: '/parties/0/participants/0/permission', keyword: 'enum' });
      expect(found).toEqual(participants.map((pointer) => ({ pointer, keyword: 'enum' })));
      expect((listOf(body, 'parties')[0]?.participants as Json[])[0]).toMatchObject({
        permission: 'Submission',
      });

      for (const party of listOf(body, 'parties')) {
        for (const participant of party.participants as Json[]) {
          participant.permission = String(participant.permission).toLowerCase();
        }
      }
      expect(problems('GET /decentralized-parties', body)).toEqual([]);
    });

    it('governance_chain-audit.json: lacks next_before_offset, which the schema tolerates (an Option field)', () => {
      const body = asObject(load('governance_chain-audit.json'));
      expect(body).not.toHaveProperty('next_before_offset');
      expect(problems('GET /governance/chain-audit', body)).toEqual([]);
      expect(problems('GET /governance/chain-audit', { ...body, next_before_offset: null })).toEqual([]);
      expect(problems('GET /governance/chain-audit', { ...body, next_before_offset: 'soon' })).toEqual([
        { pointer: '/next_before_offset', keyword: 'type' },
      ]);
    });

    it.each(GOVERNANCE_CONFIRMATIONS)(
      '%s: lacks gov_core_out_of_date (and, undocumented, `orphaned` on domain actions)',
      (file) => {
        const body = asObject(load(file));
        const domainActions = (body.domain_actions as Json[] | undefined) ?? [];
        // §13 lists only the missing gov_core_out_of_date; the server always serializes DomainGovernanceAction.orphaned
        // (a plain bool), which these samples leave out unless it is true.
        const undocumented = missing(
          ...domainActions.flatMap((a, i) => ('orphaned' in a ? [] : [`/domain_actions/${i}/orphaned`])),
        );
        expect(problems('GET /governance/confirmations', body)).toEqual([
          ...missing('/gov_core_out_of_date'),
          ...undocumented,
        ]);

        const repaired = {
          ...body,
          gov_core_out_of_date: false,
          domain_actions: domainActions.map((a) => ({ orphaned: false, ...a })),
        };
        expect(problems('GET /governance/confirmations', repaired)).toEqual([]);
      },
    );

    it('invitations.json: decodes; invented ids, no workflow_instance, dec_party_id on Onboarding/Dars cards', () => {
      const body = load('invitations.json');
      expect(problems('GET /invitations', body)).toEqual([]);
      const cards = listOf(body, 'invitations');
      const realId = /^(onboarding|kick|contracts|dars|addparty|changethreshold)-[0-9a-f]{16}-.+$/;
      for (const card of cards) {
        expect(card.id).toMatch(/^inv-\d+$/);
        expect(card.id).not.toMatch(realId);
        expect(card).not.toHaveProperty('workflow_instance');
      }
      const onboardingOrDars = cards.filter(
        (c) => c.invitation_type === 'Onboarding' || c.invitation_type === 'Dars',
      );
      expect(onboardingOrDars.length).toBeGreaterThan(0);
      for (const card of onboardingOrDars) expect(card).toHaveProperty('dec_party_id');
    });

    it('node-config.json: the documented missing fields (and, undocumented, the canton TLS blocks) are rejected', () => {
      const body = asObject(load('node-config.json'));
      expect(body).toHaveProperty('network_config'); // not a real field: additional properties pass
      expect(body).not.toHaveProperty('keycloak'); // Option fields: missing is tolerated
      expect(body).not.toHaveProperty('auth0');
      // the reference's sample shows canton.admin_api_tls / ledger_api_tls, which §13 does not list as missing
      const undocumented = missing('/canton/admin_api_tls', '/canton/ledger_api_tls');
      expect(problems('GET /node-config', body)).toEqual([
        ...missing(
          '/timeouts',
          '/noise_retry',
          '/reward_automation_interval_secs',
          '/reward_max_creates',
          '/reward_min_expiry_margin_secs',
          '/build_version',
        ),
        ...undocumented,
      ]);

      const tls = { enabled: false, ca_cert: null, client_cert: null, client_key: null, domain: null };
      const repaired = {
        ...body,
        canton: { ...asObject(body.canton), admin_api_tls: tls, ledger_api_tls: tls },
        timeouts: {
          handshake_timeout_secs: 30,
          message_timeout_secs: 120,
          connection_retry_attempts: 3,
          connection_retry_delay_secs: 5,
        },
        noise_retry: { per_attempt_timeout_secs: 5, max_attempts: 2, backoff_ms: 250 },
        reward_automation_interval_secs: 300,
        reward_max_creates: 100,
        reward_min_expiry_margin_secs: 120,
        keycloak: null,
        auth0: null,
        build_version: '0.1.10-dev',
      };
      expect(problems('GET /node-config', repaired)).toEqual([]);
    });

    it('operator-info.json: key operator_party instead of party_id', () => {
      const body = asObject(load('operator-info.json'));
      expect(problems('GET /operator-info', body)).toEqual(missing('/party_id'));
      expect(problems('GET /operator-info', { party_id: body.operator_party })).toEqual([]);
    });

    it('packages.json: a {"packages": [...]} list where a PackageConfig object is expected', () => {
      const body = asObject(load('packages.json'));
      expect(problems('GET /packages', body)).toEqual([{ pointer: '/packages', keyword: 'type' }]);
      expect(
        problems('GET /packages', { governance_core: '#governance-core-v1', vault: '#bitsafe-vault-v0-rc8' }),
      ).toEqual([]);
    });

    it('participants-status.json: decodes; the self entry has latency_ms 0, no entry has build_version', () => {
      const body = load('participants-status.json');
      expect(problems('GET /participants-status', body)).toEqual([]);
      const statuses = listOf(body, 'statuses');
      const self = statuses.filter((s) => s.status === 'CurrentNode');
      expect(self).toHaveLength(1);
      expect(self[0]).toHaveProperty('latency_ms', 0);
      expect(statuses.filter((s) => 'build_version' in s)).toEqual([]);
    });

    it('party-config.json: lacks has_auth0_client_secret and packages', () => {
      const body = asObject(load('party-config.json'));
      expect(problems('GET /party-config/{dec_party_id}', body)).toEqual(
        missing('/has_auth0_client_secret', '/packages'),
      );
      const repaired = {
        ...body,
        has_auth0_client_secret: false,
        packages: { governance_core: '#governance-core-v1' },
      };
      expect(problems('GET /party-config/{dec_party_id}', repaired)).toEqual([]);
    });

    it('workflows.json: status "idle" is rejected; step names, totals, instance names and config_json are invented', () => {
      const body = load('workflows.json');
      const runs = listOf(body, 'runs');
      const idle = runs.flatMap((run, i) => (run.status === 'idle' ? [i] : []));
      expect(idle.length).toBeGreaterThan(0);
      expect(problems('GET /workflows', body)).toEqual(
        idle.map((i) => ({ pointer: `/runs/${i}/status`, keyword: 'enum' })),
      );

      for (const run of runs) {
        const steps: readonly string[] = WORKFLOW_STEPS[run.kind as WorkflowKind];
        const realStep = steps.includes(String(run.current_step)) || run.current_step === PEER_INITIAL_STEP;
        // every sample run shows an invented step name or an invented total (or both)
        expect(realStep && run.step_total === steps.length, `${String(run.instance_name)}`).toBe(false);
        expect(run.config_json).toBe('{}');
        expect(run.instance_name).toMatch(/^[a-z]+-\d+$/);
      }
      const invented = new Set(runs.map((r) => String(r.current_step)));
      for (const name of ['ShareKeys', 'Rotate', 'Confirm', 'Done', 'Build', 'Allocating', 'Init']) {
        expect(invented.has(name), name).toBe(true);
      }

      const repaired = {
        runs: runs.map((run) => (run.status === 'idle' ? { ...run, status: 'inprogress' } : run)),
      };
      expect(problems('GET /workflows', repaired)).toEqual([]);
    });
  });
});
