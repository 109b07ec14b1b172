export type { Expr } from './ast.js';
export { ExpressionEvaluationError, ExpressionSyntaxError } from './errors.js';
export { collectReferences, type Reference } from './references.js';
export { ROOTS, type Scope } from './scope.js';
export {
  evaluateCondition,
  evaluateString,
  hasExpression,
  parseTemplate,
  resolveDeep,
  type Embedded,
  type Template,
} from './template.js';
export { truthy } from './values.js';
