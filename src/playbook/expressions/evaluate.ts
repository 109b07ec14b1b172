/** Evaluates a parsed expression over plain data. Reads own properties only; no prototype is reachable. */
import { didYouMean } from '../closest.js';
import type { Expr } from './ast.js';
import { ExpressionEvaluationError } from './errors.js';
import { FUNCTIONS } from './functions.js';
import { FORBIDDEN_PROPERTIES, ROOTS, type Scope } from './scope.js';
import { equals, isPlainObject, order, truthy, typeName } from './values.js';

/** `text` is the text the expression was parsed from; messages quote the part that failed. */
export function evaluateExpression(expr: Expr, scope: Scope, text: string): unknown {
  return new Evaluator(scope, text).evaluate(expr);
}

class Evaluator {
  constructor(
    private readonly scope: Scope,
    private readonly text: string,
  ) {}

  private source(expr: Expr): string {
    return this.text.slice(expr.start, expr.end);
  }

  evaluate(expr: Expr): unknown {
    switch (expr.type) {
      case 'literal':
        return expr.value;
      case 'root':
        return this.root(expr.name);
      case 'member':
        return this.property(expr.object, this.evaluate(expr.object), expr.property);
      case 'index':
        return this.index(expr.object, this.evaluate(expr.object), expr.index, this.evaluate(expr.index));
      case 'call':
        return this.call(
          expr.name,
          expr.args.map((arg) => this.evaluate(arg)),
        );
      case 'not':
        return !truthy(this.evaluate(expr.operand));
      case 'logical': {
        const left = this.evaluate(expr.left);
        if (expr.operator === '&&') return truthy(left) ? this.evaluate(expr.right) : left;
        return truthy(left) ? left : this.evaluate(expr.right);
      }
      case 'compare': {
        const left = this.evaluate(expr.left) ?? null;
        const right = this.evaluate(expr.right) ?? null;
        try {
          switch (expr.operator) {
            case '==':
              return equals(left, right);
            case '!=':
              return !equals(left, right);
            default:
              return order(left, right, expr.operator);
          }
        } catch (error) {
          if (!(error instanceof ExpressionEvaluationError)) throw error;
          throw new ExpressionEvaluationError(`\`${this.source(expr)}\`: ${error.message}`, error.hint);
        }
      }
    }
  }

  private root(name: string): unknown {
    const value = Object.hasOwn(this.scope, name) ? this.scope[name] : undefined;
    if (value !== undefined) return value;
    if (name === 'item') {
      throw new ExpressionEvaluationError('`item` is only defined in a step with for_each');
    }
    if (name === 'target')
      throw new ExpressionEvaluationError('`target` is not defined: this run has no target');
    const names = [...new Set([...ROOTS, ...Object.keys(this.scope)])];
    throw new ExpressionEvaluationError(
      `unknown name '${name}'`,
      didYouMean(name, names) ?? `an expression starts with one of: ${names.join(', ')}`,
    );
  }

  private property(objectExpr: Expr, object: unknown, name: string): unknown {
    const where = this.source(objectExpr);
    if (isPlainObject(object) && !FORBIDDEN_PROPERTIES.has(name) && Object.hasOwn(object, name)) {
      return object[name] ?? null;
    }
    if (isPlainObject(object)) {
      const candidates = Object.keys(object).filter((key) => !FORBIDDEN_PROPERTIES.has(key));
      throw new ExpressionEvaluationError(
        `\`${where}\` has no property '${name}'`,
        didYouMean(name, candidates),
      );
    }
    throw new ExpressionEvaluationError(
      `cannot read property '${name}' of \`${where}\`: it is ${article(typeName(object))}`,
    );
  }

  private index(objectExpr: Expr, object: unknown, indexExpr: Expr, index: unknown): unknown {
    if (typeof index === 'string') return this.property(objectExpr, object, index);
    const where = this.source(objectExpr);
    if (!Array.isArray(object)) {
      throw new ExpressionEvaluationError(
        `cannot index \`${where}\` with a number: it is ${article(typeName(object))}`,
      );
    }
    if (typeof index !== 'number' || !Number.isInteger(index)) {
      throw new ExpressionEvaluationError(
        `\`${this.source(indexExpr)}\` is not a valid index: expected an integer, got ${typeName(index)}`,
      );
    }
    if (index < 0 || index >= object.length) {
      throw new ExpressionEvaluationError(
        `index ${index} is out of range: \`${where}\` has ${object.length} element${object.length === 1 ? '' : 's'}`,
      );
    }
    return (object[index] as unknown) ?? null;
  }

  private call(name: string, args: unknown[]): unknown {
    const fn = FUNCTIONS.get(name);
    if (!fn)
      throw new ExpressionEvaluationError(`unknown function '${name}'`, didYouMean(name, FUNCTIONS.keys()));
    return fn.call(args.map((arg) => arg ?? null));
  }
}

function article(type: string): string {
  return type === 'null' ? 'null' : `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}
