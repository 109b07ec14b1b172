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
      properties: {
        gateway: { ...httpUrl, description: 'Wrapped-token gateway (GATEWAY_API_URL).' },
        registry: { ...httpUrl, description: 'Token-standard registry (REGISTRY_URL).' },
        rewards: { ...httpUrl, description: 'Daily rewards API.' },
      },
      additionalProperties: false,
    },
    parties: {
      type: 'object',
      description:
        'Named parties: the decentralized party (DECENTRALIZED_PARTY_ID), operator parties (PARTY_ID).',
      propertyNames: { pattern: '^[a-z][a-z0-9_-]*$' },
      additionalProperties: {
        type: 'string',
        pattern: '^[^:]+::[0-9a-f]{68}$',
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
