/**
 * JSON Schema validation (ajv, draft 2020-12) with findings people can act on: ajv's errors are grouped by the
 * alternative (anyOf / oneOf / if) they come from, the most specific one is kept, and each is said in words
 * with what was expected and, where we can tell, the closest valid key or value.
 */
import type { Ajv2020, ErrorObject, Options, ValidateFunction } from 'ajv/dist/2020.js';
import { formatsPlugin, newAjv } from '../ajv.js';
import type { AnyStepDeclaration, JsonSchema, StaticFinding } from './step-declaration.js';
import { didYouMean } from './closest.js';
import { typeName } from './expressions/values.js';
import { describePattern } from './patterns.js';
import { childPointer, isWithin, parsePointer } from './pointer.js';
import { precompiledValidator } from './precompiled.js';
import { annotate, inlineLocalRefs } from './schema-annotations.js';
import { ExpressionSyntaxError } from './expressions/errors.js';
import { hasExpression, type Template } from './expressions/template.js';

/**
 * A new ajv instance as ledgerbook uses it: draft 2020-12, formats, our annotation keywords. `code` is for the
 * build, which compiles the validators to source ahead of time (src/cli/precompile-validators.ts).
 */
export function createAjv(code?: Options['code']): Ajv2020 {
  const ajv = newAjv({
    ...(code ? { code } : {}),
    allErrors: true,
    verbose: true,
    strictSchema: true,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    allowUnionTypes: true,
    logger: false,
  });
  formatsPlugin()(ajv);
  ajv.addKeyword({ keyword: 'x-secret', schemaType: 'boolean' });
  ajv.addKeyword({ keyword: 'x-lazy-expression', schemaType: 'boolean' });
  return ajv;
}

let shared: Ajv2020 | undefined;
const validators = new WeakMap<object, ValidateFunction>();

/** A validator for `schema`: compiled at build time when the build did (dist/), else compiled here, once. */
export function validatorFor(schema: JsonSchema): ValidateFunction {
  let validate = validators.get(schema);
  if (!validate) {
    validate = precompiledValidator(schema);
    if (!validate) {
      shared ??= createAjv();
      validate = shared.compile(inlineLocalRefs(schema));
    }
    validators.set(schema, validate);
  }
  return validate;
}

/** One problem, with its pointer relative to the validated value. */
export interface Finding {
  pointer: string;
  /** the problem is a key (unknown key, invalid name): point at the key, not the value */
  atKey: boolean;
  message: string;
  expected?: string | undefined;
  hint?: string | undefined;
}

export interface ExplainContext {
  /** where a (relative) pointer is, for messages: "in step 'deploy'", "in core.shell `with`" */
  where(pointer: string): string;
  /** pointers of values that are whole `${{ … }}` expressions: their type cannot be known before the run */
  expressions?: ReadonlySet<string>;
  /** pointers of strings that mix text with `${{ … }}`: strings, but their content is known only at run time */
  templates?: ReadonlySet<string>;
  /** pointers whose values must not be shown */
  secret?: (pointer: string) => boolean;
}

/** Validate `value` against `schema`; findings in the order of the value. */
export function checkSchema(schema: JsonSchema, value: unknown, context: ExplainContext): Finding[] {
  const validate = validatorFor(schema);
  if (validate(value)) return [];
  return explainErrors(validate.errors ?? [], context);
}

/** `generic` where, for values with no better description: "in `services`", "at the top level". */
export function genericWhere(pointer: string): string {
  if (pointer === '') return 'at the top level';
  return `in \`${dotted(pointer)}\``;
}

/** `/steps/0/with` → `steps[0].with` */
function dotted(pointer: string): string {
  return parsePointer(pointer)
    .map((segment, i) => (/^\d+$/.test(segment) ? `[${segment}]` : i === 0 ? segment : `.${segment}`))
    .join('');
}

/**
 * A resolved `with` (every expression evaluated) against its kind's schema, strictly: what the engine checks
 * at run time before a step uses it.
 */
export function checkResolvedWith(kind: AnyStepDeclaration, value: unknown): StaticFinding[] {
  const secrets = secretPointers(kind, value);
  return checkSchema(kind.withSchema, value, {
    where: (pointer) => withWhere(kind.kind, pointer),
    secret: (pointer) => secrets.has(pointer),
  }).map(({ pointer, message, expected, hint }) => ({
    pointer,
    message,
    ...(expected === undefined ? {} : { expected }),
    ...(hint === undefined ? {} : { hint }),
  }));
}

export function withWhere(kind: string, pointer: string): string {
  return `in ${kind} \`${pointer === '' ? 'with' : `with.${dotted(pointer)}`}\``;
}

function secretPointers(kind: AnyStepDeclaration, value: unknown): Set<string> {
  const found = new Set<string>();
  for (const [pointer, annotations] of annotate(kind.withSchema, value))
    if (annotations.secret) found.add(pointer);
  return found;
}

/**
 * Pointers (relative to `value`) of the strings that are exactly one `${{ … }}` expression (`whole`) and of
 * those that mix text with expressions (`templates`).
 */
export function expressionPointers(
  value: unknown,
  parse: (text: string) => Template,
  pointer = '',
  found = { whole: new Set<string>(), templates: new Set<string>() },
): { whole: Set<string>; templates: Set<string> } {
  if (typeof value === 'string') {
    if (hasExpression(value)) (isWholeExpression(value, parse) ? found.whole : found.templates).add(pointer);
  } else if (Array.isArray(value)) {
    value.forEach((element, i) => expressionPointers(element, parse, childPointer(pointer, i), found));
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, child] of Object.entries(value))
      expressionPointers(child, parse, childPointer(pointer, key), found);
  }
  return found;
}

function isWholeExpression(text: string, parse: (text: string) => Template): boolean {
  const trimmed = text.trim();
  if (!trimmed.startsWith('${{') || !trimmed.endsWith('}}')) return false;
  try {
    return parse(text).whole;
  } catch (error) {
    // A syntax error is reported by the expression rule; for the schema the value is a plain string.
    if (error instanceof ExpressionSyntaxError) return false;
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------------------
// ajv errors → findings

interface ErrorNode {
  error: ErrorObject;
  children: ErrorNode[];
}

/** The schema path prefix under which a composite error's own errors lie, or undefined for a plain error. */
function childPrefix(error: ErrorObject): string | undefined {
  switch (error.keyword) {
    case 'anyOf':
    case 'oneOf':
    case 'propertyNames':
      return `${error.schemaPath}/`;
    case 'if': {
      const failing = (error.params as { failingKeyword?: string }).failingKeyword ?? 'then';
      return `${error.schemaPath.slice(0, -'if'.length)}${failing}/`;
    }
    default:
      return undefined;
  }
}

/** ajv lists the errors of alternatives before the error of the composite: regroup them as a tree. */
function buildTree(errors: readonly ErrorObject[]): ErrorNode[] {
  let roots: ErrorNode[] = [];
  for (const error of errors) {
    const node: ErrorNode = { error, children: [] };
    const prefix = childPrefix(error);
    if (prefix !== undefined) {
      const rest: ErrorNode[] = [];
      for (const root of roots) {
        const belongs =
          root.error.schemaPath.startsWith(prefix) && isWithin(root.error.instancePath, error.instancePath);
        (belongs ? node.children : rest).push(root);
      }
      roots = rest;
    }
    roots.push(node);
  }
  return roots;
}

export function explainErrors(errors: readonly ErrorObject[], context: ExplainContext): Finding[] {
  const explainer = new Explainer(context);
  const findings = buildTree(errors).flatMap((node) => explainer.explain(node));
  const seen = new Set<string>();
  return findings.filter((finding) => {
    const key = `${finding.pointer}\u0000${finding.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const TYPE_MISMATCH: ReadonlySet<string> = new Set(['type', 'const', 'enum']);
/** What an interpolated string's text decides: unknown until the run. */
const STRING_CONTENT: ReadonlySet<string> = new Set([
  'pattern',
  'format',
  'enum',
  'const',
  'minLength',
  'maxLength',
]);

class Explainer {
  constructor(private readonly context: ExplainContext) {}

  explain(node: ErrorNode): Finding[] {
    const { error } = node;
    if (this.context.expressions?.has(error.instancePath)) return [];
    if (STRING_CONTENT.has(error.keyword) && this.context.templates?.has(error.instancePath)) return [];
    switch (error.keyword) {
      case 'anyOf':
      case 'oneOf':
        return this.alternatives(node);
      case 'if':
        return node.children.length === 0
          ? [this.leaf(error)]
          : node.children.flatMap((child) => this.explain(child));
      case 'propertyNames':
        return [this.propertyName(node)];
      default:
        return [this.leaf(error)];
    }
  }

  private alternatives(node: ErrorNode): Finding[] {
    const { error } = node;
    const params = error.params as { passingSchemas?: number[] | null };
    if (error.keyword === 'oneOf' && Array.isArray(params.passingSchemas)) {
      return [
        this.finding(error, {
          message: `matches more than one of the allowed forms (${params.passingSchemas.map((i) => i + 1).join(' and ')})`,
          hint: 'remove the keys that make it ambiguous',
        }),
      ];
    }
    const prefix = childPrefix(error) ?? '';
    const byBranch = new Map<number, ErrorNode[]>();
    for (const child of node.children) {
      const branch = Number(child.error.schemaPath.slice(prefix.length).split('/')[0]);
      byBranch.set(branch, [...(byBranch.get(branch) ?? []), child]);
    }
    if (byBranch.size === 0) return [this.leaf(error)];
    const branches = [...byBranch].map(([index, nodes]) => ({
      index,
      nodes,
      findings: nodes.flatMap((child) => this.explain(child)),
    }));
    // A branch whose only errors were at whole expressions may well hold at run time.
    if (branches.some((branch) => branch.findings.length === 0)) return [];

    const missingOnly = branches.every((branch) =>
      branch.nodes.every(
        (n) => n.error.keyword === 'required' && n.error.instancePath === error.instancePath,
      ),
    );
    if (missingOnly) {
      const keys = [
        ...new Set(
          branches.flatMap((b) =>
            b.nodes.map((n) => (n.error.params as { missingProperty: string }).missingProperty),
          ),
        ),
      ];
      return [
        {
          pointer: error.instancePath,
          atKey: true,
          message: `missing key ${keys.map((k) => `'${k}'`).join(' or ')} ${this.context.where(error.instancePath)}`,
          expected: `one of ${keys.join(', ')}`,
        },
      ];
    }

    const matching = branches.filter(
      (branch) =>
        !branch.nodes.some(
          (n) => TYPE_MISMATCH.has(n.error.keyword) && n.error.instancePath === error.instancePath,
        ),
    );
    if (matching.length === 0) {
      const alternatives = Array.isArray(error.schema) ? (error.schema as unknown[]) : [];
      const expected = [
        ...new Set(alternatives.map((schema) => describeSchema(schema, lastSegment(error.instancePath)))),
      ];
      return [
        this.finding(error, {
          message: `expected ${expected.join(' or ')}, got ${typeName(error.data)}`,
          expected: expected.join(' or '),
        }),
      ];
    }
    const depth = (findings: Finding[]): number =>
      Math.max(...findings.map((f) => parsePointer(f.pointer).length));
    const best = [...matching].sort(
      (a, b) =>
        depth(b.findings) - depth(a.findings) || a.findings.length - b.findings.length || a.index - b.index,
    )[0];
    return best?.findings ?? [];
  }

  private propertyName(node: ErrorNode): Finding {
    const { error } = node;
    const name = (error.params as { propertyName: string }).propertyName;
    const pattern = node.children
      .map((child) => (child.error.params as { pattern?: string }).pattern)
      .find((p): p is string => p !== undefined);
    const words = pattern === undefined ? undefined : describePattern(pattern);
    return {
      pointer: childPointer(error.instancePath, name),
      atKey: true,
      message: `invalid key '${name}' ${this.context.where(error.instancePath)}`,
      expected: words?.rule ?? (pattern === undefined ? undefined : `a key matching /${pattern}/`),
      hint: words ? `for example ${words.example}` : undefined,
    };
  }

  private finding(error: ErrorObject, fields: Omit<Finding, 'pointer' | 'atKey'>): Finding {
    return { pointer: error.instancePath, atKey: false, ...fields };
  }

  private show(pointer: string, value: unknown): string {
    if (this.context.secret?.(pointer)) return 'the value';
    return showValue(value);
  }

  private leaf(error: ErrorObject): Finding {
    const pointer = error.instancePath;
    const params = error.params as Record<string, unknown>;
    const data = error.data;
    const where = this.context.where(pointer);
    const limit = params['limit'] as number;
    switch (error.keyword) {
      case 'additionalProperties':
      case 'unevaluatedProperties': {
        const key = String(params['additionalProperty'] ?? params['unevaluatedProperty']);
        const properties = (error.parentSchema as { properties?: Record<string, unknown> } | undefined)
          ?.properties;
        const allowed = Object.keys(properties ?? {}).sort();
        return {
          pointer: childPointer(pointer, key),
          atKey: true,
          message: `unknown key '${key}' ${where}`,
          expected: allowed.length > 0 ? `one of ${allowed.join(', ')}` : 'no other keys',
          // looked for when read: the findings of the alternatives that lose (alternatives()) are dropped unread
          get hint() {
            return didYouMean(key, allowed);
          },
        };
      }
      case 'required': {
        const key = String(params['missingProperty']);
        const properties = (
          error.parentSchema as { properties?: Record<string, { description?: unknown }> } | undefined
        )?.properties;
        const description = properties?.[key]?.description;
        return {
          pointer,
          atKey: true,
          message: `missing key '${key}' ${where}`,
          hint: typeof description === 'string' ? `${key}: ${description}` : undefined,
        };
      }
      case 'type': {
        const expected = typeWords(params['type']);
        return this.finding(error, { message: `expected ${expected}, got ${typeName(data)}`, expected });
      }
      case 'enum': {
        const allowed = (params['allowedValues'] as unknown[] | undefined) ?? [];
        const strings = allowed.filter((v): v is string => typeof v === 'string');
        return this.finding(error, {
          message: `${this.show(pointer, data)} is not an allowed value`,
          expected: `one of ${allowed.map((v) => (typeof v === 'string' ? v : showValue(v))).join(', ')}`,
          hint: typeof data === 'string' ? didYouMean(data, strings) : undefined,
        });
      }
      case 'const':
        return this.finding(error, {
          message: `expected ${showValue(params['allowedValue'])}, got ${this.show(pointer, data)}`,
          expected: showValue(params['allowedValue']),
        });
      case 'pattern': {
        const pattern = String(params['pattern']);
        const words = describePattern(pattern, lastSegment(pointer));
        return this.finding(error, {
          message: `${this.show(pointer, data)} is not a valid ${words?.noun ?? 'value here'}`,
          expected: words ? `${withArticle(words.noun)}: ${words.rule}` : `a string matching /${pattern}/`,
          hint: words ? `for example ${words.example}` : undefined,
        });
      }
      case 'format':
        return this.finding(error, {
          message: `${this.show(pointer, data)} is not a valid ${String(params['format'])}`,
          expected: `a ${String(params['format'])}`,
        });
      case 'minLength':
        return this.finding(error, {
          message: limit === 1 ? 'must not be empty' : `shorter than ${limit} characters`,
          expected: limit === 1 ? 'a non-empty string' : `at least ${limit} characters`,
        });
      case 'maxLength':
        return this.finding(error, {
          message: `longer than ${limit} characters`,
          expected: `at most ${limit} characters`,
        });
      case 'minItems':
        return this.finding(error, {
          message: `expected at least ${plural(limit, 'item')}, got ${(data as unknown[]).length}`,
          expected: `at least ${plural(limit, 'item')}`,
        });
      case 'maxItems':
        return this.finding(error, {
          message: `expected at most ${plural(limit, 'item')}, got ${(data as unknown[]).length}`,
          expected: `at most ${plural(limit, 'item')}`,
        });
      case 'minProperties':
        return this.finding(error, { message: `expected at least ${plural(limit, 'entry', 'entries')}` });
      case 'maxProperties':
        return this.finding(error, { message: `expected at most ${plural(limit, 'entry', 'entries')}` });
      case 'minimum':
      case 'maximum':
      case 'exclusiveMinimum':
      case 'exclusiveMaximum': {
        const expected = `a number ${String(params['comparison'])} ${limit}`;
        return this.finding(error, {
          message: `expected ${expected}, got ${this.show(pointer, data)}`,
          expected,
        });
      }
      case 'multipleOf':
        return this.finding(error, { message: `expected a multiple of ${String(params['multipleOf'])}` });
      case 'uniqueItems':
        return this.finding(error, {
          message: `items ${String(params['j'])} and ${String(params['i'])} are the same`,
          expected: 'no duplicates',
        });
      case 'dependentRequired':
      case 'dependencies':
        return this.finding(error, {
          message: `'${String(params['property'])}' needs '${String(params['missingProperty'])}' ${where}`,
        });
      case 'not':
      case 'false schema':
        return this.finding(error, { message: `not allowed ${where}` });
      default:
        return this.finding(error, { message: error.message ?? `invalid (${error.keyword})` });
    }
  }
}

function withArticle(noun: string): string {
  return `${/^[aeiou]/i.test(noun) && noun !== 'URL' ? 'an' : 'a'} ${noun}`;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function lastSegment(pointer: string): string | undefined {
  return parsePointer(pointer).at(-1);
}

function typeWords(type: unknown): string {
  const types = Array.isArray(type) ? type.map(String) : String(type).split(',');
  return types.join(' or ');
}

/** A value in a message: strings quoted, long values cut. */
export function showValue(value: unknown): string {
  const text = typeof value === 'string' ? `'${value}'` : (JSON.stringify(value) ?? 'null');
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/** One alternative of an anyOf/oneOf, in words: "a duration: …", "string", "'auto'". */
function describeSchema(schema: unknown, field: string | undefined): string {
  if (typeof schema !== 'object' || schema === null) return 'another form';
  const s = schema as Record<string, unknown>;
  if ('const' in s) return showValue(s['const']);
  if (Array.isArray(s['enum'])) return `one of ${s['enum'].map(showValue).join(', ')}`;
  if (typeof s['pattern'] === 'string') {
    const words = describePattern(s['pattern'], field);
    if (words) return `${withArticle(words.noun)} (${words.rule})`;
  }
  if (s['type'] !== undefined) return typeWords(s['type']);
  if (Array.isArray(s['required']))
    return `an object with ${s['required'].map((k) => `'${String(k)}'`).join(', ')}`;
  return 'another form';
}
