/**
 * The records of the checkpoint journal (journal.ts writes and reads them; journal-state.ts folds them into the
 * state of each run). One line of `journal.ndjson` each; the format is JOURNAL_FORMAT of journal.ts.
 */
import type { Intent, Outputs } from '../steps/contract.js';

export type JournalRecord =
  | {
      t: 'run';
      v: 1;
      run: string;
      at: string;
      playbook: string;
      /** the playbook file as the command line named it */
      file: string;
      /**
       * the playbook file as every checkout names it: its path in the git work tree it lives in, else its
       * absolute path (see playbook-path.ts); absent in journals written before it was recorded
       */
      path?: string;
      target: string;
      digest: string;
      inputsDigest: string;
      pid: number;
      host: string;
      user: string;
      mode: 'run';
      /** started with --fresh: journal-only memory of earlier runs (see lastFinishedStep) is forgotten */
      fresh?: boolean;
    }
  | { t: 'step'; run: string; step: string; at: string; withDigest: string; items: number }
  | { t: 'intent'; run: string; step: string; item: string; at: string; intent: Intent }
  | {
      t: 'done';
      run: string;
      step: string;
      item: string;
      at: string;
      status: 'applied' | 'in-sync' | 'reconciled';
      outputs: Outputs;
    }
  | {
      /** an item's attempt ended with a definite error: its intents are settled, the next run plans it anew */
      t: 'failed';
      run: string;
      step: string;
      item: string;
      at: string;
      error: { code: string; message: string };
    }
  | {
      t: 'step-done';
      run: string;
      step: string;
      at: string;
      status: 'applied' | 'in-sync' | 'skipped';
      outputs: Outputs;
      withDigest: string;
    }
  | {
      /** an operator's decision about an item whose outcome was ambiguous (`ledgerbook state resolve`) */
      t: 'resolve';
      run: string;
      step: string;
      item: string;
      at: string;
      as: 'done' | 'redo';
      by: string;
    }
  | {
      t: 'end';
      run: string;
      at: string;
      status: 'succeeded' | 'failed' | 'paused' | 'ambiguous' | 'interrupted';
      exitCode: number;
      error?: { code: string; message: string };
    };

export type JournalRecordType = JournalRecord['t'];
