/** What an expression reads: `steps.build.outputs.digest` is root `steps`, path [build, outputs, digest]. */
import type { Expr } from './ast.js';
import { parseBare, parseTemplate, type Template } from './template.js';

export interface Reference {
  root: string;
  /** the property names read after the root, up to the first computed index */
  path: string[];
  /** offset of the root name in the text */
  offset: number;
}

/**
 * Every reference in the `${{ … }}` expressions of `text` (or, with `bare`, in `text` as one bare expression,
 * as `if:` accepts it). Throws ExpressionSyntaxError.
 */
export function collectReferences(text: string, options: { bare?: boolean } = {}): Reference[] {
  if (!options.bare) return templateReferences(parseTemplate(text));
  const found: Reference[] = [];
  visit(parseBare(text), found);
  return found;
}

/** Every reference in the expressions of a parsed template. */
export function templateReferences(template: Template): Reference[] {
  const found: Reference[] = [];
  for (const part of template.parts) visit(part.expr, found);
  return found;
}

function visit(expr: Expr, found: Reference[]): void {
  switch (expr.type) {
    case 'literal':
      return;
    case 'root':
    case 'member':
    case 'index': {
      const segments: (string | undefined)[] = [];
      let node: Expr = expr;
      while (node.type === 'member' || node.type === 'index') {
        if (node.type === 'member') {
          segments.push(node.property);
        } else if (node.index.type === 'literal' && typeof node.index.value === 'number') {
          segments.push(String(node.index.value));
        } else {
          segments.push(undefined);
          visit(node.index, found);
        }
        node = node.object;
      }
      if (node.type !== 'root') {
        visit(node, found);
        return;
      }
      const path: string[] = [];
      for (const segment of segments.reverse()) {
        if (segment === undefined) break;
        path.push(segment);
      }
      found.push({ root: node.name, path, offset: node.start });
      return;
    }
    case 'call':
      for (const arg of expr.args) visit(arg, found);
      return;
    case 'not':
      visit(expr.operand, found);
      return;
    case 'compare':
    case 'logical':
      visit(expr.left, found);
      visit(expr.right, found);
      return;
  }
}
