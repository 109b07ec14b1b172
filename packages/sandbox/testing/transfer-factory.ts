/**
 * A transfer through the registry's transfer factory, built by hand for tests that shape the submission themselves
 * (a changed argument, other disclosures, another route): the `TransferFactory_Transfer` exercise with the
 * factory's choice context in its extra args, and the disclosures in the four fields the SDK forwards.
 */
import { TRANSFER_FACTORY, type Disclosed } from './token-helpers.js';

export interface ExerciseCommand {
  ExerciseCommand: {
    templateId: string;
    contractId: string;
    choice: string;
    choiceArgument: Record<string, unknown>;
  };
}

/** `TransferFactory_Transfer` of `argument` on the factory the registry named, with its choice context */
export function transferFactoryCommand(
  factory: { factoryId: string; choiceContext: { choiceContextData: unknown } },
  argument: Record<string, unknown>,
): ExerciseCommand {
  return {
    ExerciseCommand: {
      templateId: TRANSFER_FACTORY,
      contractId: factory.factoryId,
      choice: 'TransferFactory_Transfer',
      choiceArgument: {
        ...argument,
        extraArgs: { context: factory.choiceContext.choiceContextData, meta: { values: {} } },
      },
    },
  };
}

/** the registry's disclosures as JsCommands carries them: the four fields, no debug fields */
export function sdkDisclosed(disclosed: Disclosed[]): Disclosed[] {
  return disclosed.map(({ templateId, contractId, createdEventBlob, synchronizerId }) => ({
    templateId,
    contractId,
    createdEventBlob,
    synchronizerId,
  }));
}
