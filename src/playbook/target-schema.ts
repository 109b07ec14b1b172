/**
 * The target file: which environment a playbook runs against. Source of `schemas/target.schema.json`
 * (`npm run schemas` writes it; a test fails when the two drift apart). A target names where each secret
 * comes from, never a secret value.
 */
import type { FromSchema } from 'json-schema-to-ts';

const secretRef = {
  type: 'object',
  description:
    'A secret, by name: its value comes from `secrets:` below, --secrets-file, or the environment.',
  properties: { secret: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' } },
  required: ['secret'],
  additionalProperties: false,
} as const;

const httpUrl = { type: 'string', format: 'uri', pattern: '^https?://' } as const;

export const partyIdSchema = {
  type: 'string',
  // letters, digits, - and _ before the ::, as token steps read party ids: no invisible character slips through
  pattern: '^[A-Za-z0-9_-]{1,185}::[0-9a-f]{68}$',
  description: 'A party id, `<hint>::1220<64 hex>` (letters, digits, `-` and `_` in the hint).',
} as const;

export const authSchema = {
  type: 'object',
  description:
    'How ledgerbook gets an access token: an OpenID Connect provider (Keycloak-style issuer URL) and a grant.',
  properties: {
    issuer: {
      ...httpUrl,
      description:
        'Issuer URL, e.g. https://keycloak.example.com/auth/realms/canton (the IDP_HOST + IDP_REALM).',
    },
    clientId: { type: 'string', minLength: 1, description: 'OAuth client id (IDP_CLIENT_ID).' },
    grant: {
      enum: ['password', 'client_credentials'],
      description: '`password` (IDP_USERNAME/IDP_PASSWORD) or `client_credentials` (clientSecret).',
    },
    username: { type: 'string', minLength: 1 },
    password: secretRef,
    clientSecret: secretRef,
    scope: { type: 'string' },
  },
  required: ['issuer', 'clientId', 'grant'],
  additionalProperties: false,
} as const;

export const nodeSchema = {
  type: 'object',
  description: 'One operator node: its decentralized-party manager, its participant ledger API and identity.',
  properties: {
    participantId: {
      type: 'string',
      pattern: '^[^:]+::[0-9a-f]{68}$',
      description: 'The participant id, `<name>::<68 hex>`.',
    },
    dpm: { ...httpUrl, description: 'Base URL of the node’s decentralized-party manager (DPM) API.' },
    ledger: { ...httpUrl, description: 'Base URL of the participant’s JSON Ledger API v2 (LEDGER_HOST).' },
    party: {
      type: 'string',
      pattern: '^[^:]+::[0-9a-f]{68}$',
      description:
        'The party this node’s operator acts as (PARTY_ID): its member party in decentralized parties and contracts.',
    },
    auth: {
      ...authSchema,
      description: 'Credentials for this node, when they differ from the target’s `auth`.',
    },
    controlled: {
      type: 'boolean',
      description:
        'Whether this target may act on the node (accept invitations, upload). Default true; set false for peers run by other operators.',
    },
  },
  required: ['participantId', 'dpm'],
  additionalProperties: false,
} as const;

export const targetSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://ledgerbook.dev/schemas/target.schema.json',
  title: 'ledgerbook target',
  description:
    'The environment a playbook runs against: network, nodes, services, parties and secret sources.',
  type: 'object',
  properties: {
    $schema: { type: 'string' },
    name: {
      type: 'string',
      pattern: '^[a-z0-9][a-z0-9._-]*$',
      description: 'Short name, used in state paths.',
    },
    network: {
      enum: ['devnet', 'testnet', 'mainnet'],
      description: 'The Canton network (LEDGER_NETWORK).',
    },
    allowPlainHttp: {
      type: 'boolean',
      description:
        'Lab networks only: allow http:// node and service URLs on other machines (never for the identity provider). Tokens then travel in clear; every run warns.',
    },
    auth: authSchema,
    nodes: {
      type: 'object',
      description: 'Operator nodes by name; playbooks refer to nodes by these names.',
      propertyNames: { pattern: '^[a-z][a-z0-9_-]*$' },
      additionalProperties: nodeSchema,
      minProperties: 1,
    },
    services: {
      type: 'object',
      description: 'The token services this target uses (each an http(s) base URL).',
      properties: {
        gateway: {
          ...httpUrl,
          description:
            'Wrapped-token gateway (BITSAFE_API_URL): account rules, deposit addresses, token contracts.',
        },
        registry: {
          ...httpUrl,
          description:
            'Token-standard registry (REGISTRY_URL), e.g. https://api.utilities.digitalasset.com; the instrument admin is appended.',
        },
        rewards: { ...httpUrl, description: 'Daily rewards (Activity Tracker) API.' },
        faucet: { ...httpUrl, description: 'Devnet faucet (FAUCET_URL), where minting is unavailable.' },
        bitcoin: {
          ...httpUrl,
          description:
            'Sandbox only: the simulated Bitcoin chain that `sandbox.btc-send` pays deposit addresses on.',
        },
      },
      additionalProperties: false,
    },
    instrument: {
      type: 'object',
      description:
        'The token this target deals in: its admin (the registrar, DECENTRALIZED_PARTY_ID) and id. Holdings are matched on both.',
      properties: {
        admin: { ...partyIdSchema, description: 'The instrument admin party, e.g. cbtc-network::1220….' },
        id: { type: 'string', minLength: 1, description: 'The instrument id, e.g. CBTC.' },
      },
      required: ['admin', 'id'],
      additionalProperties: false,
    },
    parties: {
      type: 'object',
      description:
        'Named parties. A plain party id is one the playbooks refer to (an instrument admin, a counterparty). An object is a party this target acts as: through `node`’s ledger API, with that node’s credentials unless it names its own; its ledger user needs the right to act as it.',
      propertyNames: { pattern: '^[a-z][a-z0-9_-]*$' },
      additionalProperties: {
        oneOf: [
          partyIdSchema,
          {
            type: 'object',
            properties: {
              party: partyIdSchema,
              node: {
                type: 'string',
                pattern: '^[a-z][a-z0-9_-]*$',
                description: 'The node (under nodes:) whose participant hosts the party.',
              },
              auth: {
                ...authSchema,
                description: 'Credentials of a ledger user that may act as this party, when not the node’s.',
              },
            },
            required: ['party', 'node'],
            additionalProperties: false,
          },
        ],
      },
    },
    secrets: {
      type: 'object',
      description: 'Where each secret comes from: an environment variable or a file. Never a value.',
      propertyNames: { pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
      additionalProperties: {
        oneOf: [
          {
            type: 'object',
            properties: { env: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' } },
            required: ['env'],
            additionalProperties: false,
          },
          {
            type: 'object',
            properties: { file: { type: 'string', minLength: 1 } },
            required: ['file'],
            additionalProperties: false,
          },
        ],
      },
    },
  },
  required: ['name', 'network'],
  additionalProperties: false,
} as const;

export type TargetFile = FromSchema<typeof targetSchema>;
export type TargetAuth = FromSchema<typeof authSchema>;
export type TargetNode = FromSchema<typeof nodeSchema>;
export type TargetParty = NonNullable<TargetFile['parties']>[string];
