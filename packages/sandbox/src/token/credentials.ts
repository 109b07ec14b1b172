/**
 * Utility credentials (wrapped-api.md §8.3): a Credential an issuer grants a holder (claims such as
 * `hasCBTCRole = Minter`), the issuer's CredentialOffer, and the UserService through which a user accepts a free
 * offer.
 */
import { T } from '../ledger/lf.js';
import { type Contract, template } from '../ledger/model.js';
import type { ChoiceContext } from '../ledger/model.js';
import { PKG } from './packages.js';
import { micros } from './types.js';

export interface Claim {
  subject: string;
  property: string;
  value: string;
}

const ClaimT = T.record('Claim', { subject: T.text, property: T.text, value: T.text });

export interface CredentialArg {
  issuer: string;
  holder: string;
  id: string;
  description: string;
  claims: Claim[];
  validFrom: string | null;
  validUntil: string | null;
  observers: string[];
}

export const Credential = template<CredentialArg>({
  pkg: PKG.credential,
  name: { module: 'Utility.Credential.V0.Credential', entity: 'Credential' },
  argType: T.record('Credential', {
    issuer: T.party,
    holder: T.party,
    id: T.text,
    description: T.text,
    claims: T.list(ClaimT),
    validFrom: T.optional(T.time),
    validUntil: T.optional(T.time),
    observers: T.list(T.party),
  }),
  signatories: (a) => [...new Set([a.issuer, a.holder])],
  observers: (a) => a.observers,
});

export interface CredentialOfferArg {
  operator: string;
  issuer: string;
  holder: string;
  dso: string;
  id: string;
  description: string;
  claims: Claim[];
  billingParams: unknown;
}

export const CredentialOffer = template<CredentialOfferArg>({
  pkg: PKG.credentialApp,
  name: { module: 'Utility.Credential.App.V0.Model.Offer', entity: 'CredentialOffer' },
  argType: T.record('CredentialOffer', {
    operator: T.party,
    issuer: T.party,
    holder: T.party,
    dso: T.party,
    id: T.text,
    description: T.text,
    claims: T.list(ClaimT),
    billingParams: T.optional(T.any),
  }),
  signatories: (a) => [...new Set([a.issuer, a.operator])],
  observers: (a) => [a.holder],
  choices: {
    CredentialOffer_AcceptFree: {
      argType: T.record('CredentialOffer_AcceptFree', {}),
      consuming: true,
      controllers: (a) => [a.holder],
      body: (tx, self) => {
        const o = self.arg;
        tx.require(
          o.billingParams === null,
          `credential offer ${self.cid} is not free: accept it with its billing`,
        );
        const credentialCid = tx.create(Credential, {
          issuer: o.issuer,
          holder: o.holder,
          id: o.id,
          description: o.description,
          claims: o.claims,
          validFrom: null,
          validUntil: null,
          observers: [],
        });
        return { credentialCid };
      },
    },
  },
});

export const UserService = template<{ operator: string; user: string; dso: string }>({
  pkg: PKG.credentialApp,
  name: { module: 'Utility.Credential.App.V0.Service.User', entity: 'UserService' },
  argType: T.record('UserService', { operator: T.party, user: T.party, dso: T.party }),
  signatories: (a) => [...new Set([a.operator, a.user])],
  observers: (a) => [a.dso],
  choices: {
    UserService_AcceptFreeCredentialOffer: {
      argType: T.record('UserService_AcceptFreeCredentialOffer', { credentialOfferCid: T.cid }),
      consuming: false,
      controllers: (a) => [a.user],
      body: (tx, self, arg: { credentialOfferCid: string }) => {
        const offer = tx.fetch<CredentialOfferArg>(
          arg.credentialOfferCid,
          CredentialOffer,
          'credential offer',
        );
        tx.require(
          offer.arg.holder === self.arg.user,
          `credential offer ${offer.cid} is for ${offer.arg.holder}, not ${self.arg.user}`,
        );
        return tx.exercise(offer.cid, 'CredentialOffer_AcceptFree', {});
      },
    },
  },
});

export const MINTER_CLAIM = { property: 'hasCBTCRole', value: 'Minter' } as const;

/** Checks credential contract ids: held by `holder`, issued by `issuer`, valid now, carrying the claim. */
export function requireCredentials(
  tx: ChoiceContext,
  cids: string[],
  holder: string,
  issuer: string,
  claim: { property: string; value: string },
): void {
  tx.require(
    cids.length > 0,
    `at least one credential with ${claim.property} = ${claim.value} is required (credentialCids is empty)`,
  );
  for (const cid of cids) {
    const credential: Contract<CredentialArg> = tx.fetch(cid, Credential, 'credential');
    const c = credential.arg;
    tx.require(c.holder === holder, `credential ${cid} is held by ${c.holder}, not ${holder}`);
    tx.require(
      c.issuer === issuer,
      `credential ${cid} is issued by ${c.issuer}, not by the registrar ${issuer}`,
    );
    tx.require(c.validFrom === null || micros(c.validFrom) <= tx.now, `credential ${cid} is not valid yet`);
    tx.require(c.validUntil === null || micros(c.validUntil) > tx.now, `credential ${cid} has expired`);
    tx.require(
      c.claims.some((x) => x.property === claim.property && x.value === claim.value),
      `credential ${cid} does not carry the claim ${claim.property} = ${claim.value}`,
    );
  }
}
