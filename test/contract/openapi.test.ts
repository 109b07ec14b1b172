/**
 * The validator the contract tests rely on: it must accept what the documents declare, refuse what they do not,
 * and treat the documents' known quirks as the real services do (the ledger and registry tests build on it).
 */
import { describe, expect, it } from 'vitest';
import { SPEC_FILES, type SpecName, validateRequest, validateResponse } from './openapi.js';

const holdingsFilter = {
  filtersByParty: {
    'alice::1220aa': {
      cumulative: [
        {
          identifierFilter: {
            InterfaceFilter: {
              value: {
                interfaceId: '#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding',
                includeInterfaceView: true,
                includeCreatedEventBlob: true,
              },
            },
          },
        },
      ],
    },
  },
};

describe('OpenAPI validation of the published documents', () => {
  it.each(Object.keys(SPEC_FILES) as SpecName[])('%s loads and resolves its operations', async (name) => {
    const probe: Record<SpecName, [string, string]> = {
      'ledger-3.5.1': ['GET', '/v2/version'],
      'ledger-3.4.12': ['GET', '/v2/version'],
      'token-metadata': ['GET', '/registry/metadata/v1/info'],
      'token-transfer-instruction': ['POST', '/registry/transfer-instruction/v1/transfer-factory'],
      'token-allocation': ['POST', '/registry/allocations/v1/00ab/choice-contexts/withdraw'],
      'token-allocation-instruction': ['POST', '/registry/allocation-instruction/v1/allocation-factory'],
    };
    const [method, path] = probe[name];
    const verdict = await validateRequest(name, method, path, method === 'POST' ? {} : undefined);
    expect(verdict.operationId).toBeDefined();
  });

  it('accepts an eventFormat active-contracts request on both releases and refuses a wrong type', async () => {
    for (const name of ['ledger-3.5.1', 'ledger-3.4.12'] as const) {
      const good = await validateRequest(name, 'POST', '/v2/state/active-contracts', {
        activeAtOffset: 4251,
        eventFormat: { ...holdingsFilter, verbose: false },
      });
      expect(good, name).toMatchObject({ valid: true, operationId: 'postV2StateActive-contracts' });
      const bad = await validateRequest(name, 'POST', '/v2/state/active-contracts', {
        activeAtOffset: 'latest',
        eventFormat: holdingsFilter,
      });
      expect(bad.valid).toBe(false);
      expect(bad.findings).toContainEqual({ at: '/requestBody/activeAtOffset', message: 'must be integer' });
    }
  });

  it('quirk: the SDK’s deprecated filter/verbose body is declared in 3.5.1 but lacks the eventFormat 3.4.12 requires', async () => {
    const legacy = { filter: holdingsFilter, verbose: false, activeAtOffset: 4251 };
    expect((await validateRequest('ledger-3.5.1', 'POST', '/v2/state/active-contracts', legacy)).valid).toBe(
      true,
    );
    const old = await validateRequest('ledger-3.4.12', 'POST', '/v2/state/active-contracts', legacy);
    expect(old.valid).toBe(false);
    expect(old.findings.map((f) => f.message).join('; ')).toMatch(/eventFormat/);
  });

  it('quirk: the SDK’s choice-context body {"meta":{"values":""}} fits the registry’s map of strings', async () => {
    const verdict = await validateRequest(
      'token-transfer-instruction',
      'POST',
      '/registry/transfer-instruction/v1/00fadd/choice-contexts/accept',
      { meta: { values: '' } },
    );
    expect(verdict.valid, JSON.stringify(verdict.findings)).toBe(true);
  });

  it('checks responses: an active contract missing its synchronizer is refused; errors match JsCantonError', async () => {
    const createdEvent = {
      offset: 4249,
      nodeId: 7,
      contractId: '00c5eb',
      templateId: '8107899a:Utility.Registry.Holding.V0.Holding:Holding',
      createArgument: {},
      witnessParties: ['alice::1220aa'],
      signatories: ['alice::1220aa'],
      createdAt: '2026-04-10T09:00:00.000000Z',
      packageName: 'utility-registry-holding-v0',
      representativePackageId: '8107899a',
      acsDelta: true,
    };
    const entry = (active: Record<string, unknown>) => [
      { workflowId: '', contractEntry: { JsActiveContract: active } },
    ];
    const ok = await validateResponse(
      'ledger-3.5.1',
      'POST',
      '/v2/state/active-contracts',
      200,
      entry({ createdEvent, synchronizerId: 'global-domain::1220', reassignmentCounter: 0 }),
    );
    expect(ok.valid, JSON.stringify(ok.findings)).toBe(true);
    const missing = await validateResponse(
      'ledger-3.5.1',
      'POST',
      '/v2/state/active-contracts',
      200,
      entry({ createdEvent, reassignmentCounter: 0 }),
    );
    expect(missing.valid).toBe(false);
    const error = { code: 'CONTRACT_NOT_FOUND', cause: 'gone', context: {}, errorCategory: 11 };
    expect(
      (
        await validateResponse(
          'ledger-3.5.1',
          'POST',
          '/v2/commands/submit-and-wait-for-transaction',
          404,
          error,
        )
      ).valid,
    ).toBe(true);
    expect(
      (
        await validateResponse('ledger-3.5.1', 'POST', '/v2/commands/submit-and-wait-for-transaction', 404, {
          code: 1,
        })
      ).valid,
    ).toBe(false);
  });

  it('names a path the document does not have', async () => {
    const verdict = await validateRequest('ledger-3.5.1', 'GET', '/v2/no-such-thing');
    expect(verdict).toMatchObject({ valid: false, operationId: undefined });
    expect(verdict.findings[0]?.message).toContain('is not an operation of canton-json-api-v2.openapi.yaml');
  });
});
