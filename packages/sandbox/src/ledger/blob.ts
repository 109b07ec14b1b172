/**
 * `createdEventBlob`: the opaque form of a contract a participant hands out so that another party can disclose
 * it with a submission (explicit disclosure). Here: base64 of the contract's stored form. A disclosed blob is
 * accepted only when it is exactly the blob of an active contract (so a client cannot forge or alter one).
 */
import type { StoredContract } from './entries.js';
import type { Contract } from './model.js';
import { packageIdForm } from './model.js';

export function storedContract(contract: Contract): StoredContract {
  return {
    cid: contract.cid,
    tpl: packageIdForm(contract.template.pkg, contract.template.name),
    arg: contract.arg,
    at: contract.createdAt,
    o: contract.offset,
    n: contract.nodeId,
  };
}

export function blobOf(contract: Contract): string {
  return Buffer.from(JSON.stringify(storedContract(contract))).toString('base64');
}

/** the contract id and template a blob claims; undefined when it is not a blob of this ledger */
export function readBlob(blob: string): { cid: string; tpl: string } | undefined {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(blob)) return undefined;
  try {
    const value = JSON.parse(Buffer.from(blob, 'base64').toString('utf8')) as Partial<StoredContract>;
    return typeof value.cid === 'string' && typeof value.tpl === 'string'
      ? { cid: value.cid, tpl: value.tpl }
      : undefined;
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
}
