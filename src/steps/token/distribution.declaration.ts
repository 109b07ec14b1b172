/**
 * What the declarations of the token kinds that send read of a distribution: the receipts that may be sent again.
 */

/** What a playbook may have offered again (`resend:`): the offers that ended, or can no longer end, unpaid. */
export const RESENDABLE = ['expired', 'rejected', 'withdrawn'] as const;

export type Resendable = (typeof RESENDABLE)[number];
