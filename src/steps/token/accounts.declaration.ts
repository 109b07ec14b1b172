/**
 * What the declarations of the token kinds that name an account read: its schema.
 */

export const accountIdSchema = {
  type: 'string',
  minLength: 1,
  description:
    'Which account, by its account id (an output of token.deposit-account or token.withdraw-account). Default: the party’s only account, or the first by account id.',
} as const;
