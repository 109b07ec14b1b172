import { isMinterCredential, type Credential, type UserService } from '../../clients/party-ledger.js';
import { acceptCredentialOfferCommand } from '../../clients/token-commands.js';
import { defineStep, type JsonValue, type Outputs, type StepContext } from '../contract.js';
import { StepError } from '../../errors.js';
import { short } from './common.js';
import { tokenCredentialsDeclaration, type With } from './credentials.declaration.js';
import { submitOnce } from './submit.js';

interface Observed {
  party: string;
  minter: Credential[];
  offers: Credential[];
  userService: UserService | undefined;
}

async function observeCredentials(ctx: StepContext, w: With): Promise<Observed> {
  const party = ctx.clients.party(w.party);
  const options = { signal: ctx.signal };
  const minter = (await party.credentials(options)).filter(isMinterCredential);
  if (minter.length > 0) return { party: party.party, minter, offers: [], userService: undefined };
  const offers = (await party.credentialOffers(options)).filter(isMinterCredential);
  const userService = offers.length > 0 ? (await party.userServices(options))[0] : undefined;
  return { party: party.party, minter, offers, userService };
}

function outputs(credentials: readonly Credential[]): Outputs {
  return {
    credential_cids: credentials.map((c) => c.contractId),
    credentials: credentials.map((c): JsonValue => ({
      contract_id: c.contractId,
      issuer: c.issuer,
      id: c.id ?? null,
      description: c.description ?? null,
    })),
  };
}

function describeOffer(offer: Credential): string {
  return `'${offer.id ?? short(offer.contractId)}'${offer.description ? ` (${offer.description})` : ''} from ${offer.issuer}`;
}

/**
 * token.credentials: in sync when the party holds a Minter credential (`hasCBTCRole` = `Minter`). Otherwise it
 * accepts the first Minter credential offer made to the party (`UserService_AcceptFreeCredentialOffer`, under a
 * command id derived from the offer), or says what is missing: an offer (the issuer makes one), or the party's
 * UserService (its onboarding to the utility).
 */
export const tokenCredentials = defineStep<With, Observed>({
  ...tokenCredentialsDeclaration,
  observe: observeCredentials,
  plan(w, state) {
    if (state.minter.length > 0 || w.accept === false) return { changes: [], outputs: outputs(state.minter) };
    const offer = state.offers[0];
    if (offer === undefined) {
      throw new StepError(`${w.party} (${state.party}) holds no Minter credential and has no offer of one`, {
        hint: 'credential offers are made by the issuer: ask the instrument admin for a Minter credential offer, then run again',
      });
    }
    if (state.userService === undefined) {
      throw new StepError(
        `${w.party} has a Minter credential offer but no UserService contract to accept it with`,
        {
          hint: 'the party must be onboarded to the Canton Network utility first (it then has a UserService)',
        },
      );
    }
    return {
      changes: [
        {
          action: 'create',
          summary: `accept the Minter credential offer ${describeOffer(offer)} for ${w.party}`,
          details: { party: state.party, offer: offer.contractId },
        },
      ],
    };
  },
  async apply(ctx, w, _item, _plan, state) {
    const offer = state.offers[0];
    const userService = state.userService;
    if (offer === undefined || userService === undefined) return outputs(state.minter);
    const party = ctx.clients.party(w.party);
    const commandId = ctx.commandId('accept-credential-offer', {
      party: state.party,
      offer: offer.contractId,
    });
    await submitOnce(
      ctx,
      party,
      { action: 'accept-credential-offer', commandId, offer: offer.contractId },
      () =>
        party.submit(
          commandId,
          acceptCredentialOfferCommand({ userService, credentialOfferCid: offer.contractId }),
          { signal: ctx.signal },
        ),
    );
    const after = await observeCredentials(ctx, w);
    if (after.minter.length === 0) {
      throw new StepError(
        `the offer ${describeOffer(offer)} was accepted but ${w.party} holds no Minter credential`,
        {
          hint: 'the credential the offer gave has no hasCBTCRole = Minter claim: ask the issuer',
        },
      );
    }
    return outputs(after.minter);
  },
  async reconcile(ctx, w) {
    const state = await observeCredentials(ctx, w);
    if (state.minter.length > 0) return { status: 'done', outputs: outputs(state.minter) };
    return { status: 'not-done', note: 'the party holds no Minter credential yet' };
  },
});
