import { LedgerbookError } from '../../errors.js';

/** An expression that cannot be parsed. `offset` is where the problem starts, in the text that was parsed. */
export class ExpressionSyntaxError extends LedgerbookError {
  readonly offset: number;

  constructor(message: string, offset: number, hint?: string) {
    super('LB_PLAYBOOK_INVALID', message, { hint });
    this.offset = offset;
  }
}

/** An expression that parsed but cannot be evaluated: an unknown name or property, a type error. */
export class ExpressionEvaluationError extends LedgerbookError {
  constructor(message: string, hint?: string) {
    super('LB_STEP_FAILED', message, { hint });
  }
}
