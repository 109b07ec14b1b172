/** `--input name=value`: converted to the declared type, checked against `enum`, defaults applied. */
import jsYaml from 'js-yaml';
import { UsageError, ValidationError } from '../errors.js';
import { didYouMean } from '../playbook/closest.js';
import type { Diagnostic } from '../diagnostics.js';
import { sameValue, typeName } from '../playbook/expressions/values.js';
import type { Playbook } from '../playbook/model.js';
import type { InputFile } from '../playbook/playbook-schema.js';
import { childPointer } from '../playbook/pointer.js';
import { showValue } from '../playbook/schema-check.js';

/** `["a=1", "b=x=y"]` → `{a: "1", b: "x=y"}`; a flag without `=`, or a name given twice, is a usage error. */
/** A YAML value given on the command line (`[a, b]`, `{k: v}`): the YAML 1.2 core schema, as playbooks. */
function loadFlow(text: string): unknown {
  return jsYaml.load(text, { schema: jsYaml.CORE_SCHEMA });
}

export function parseInputFlags(flags: string[]): Record<string, string> {
  const given: Record<string, string> = {};
  for (const flag of flags) {
    const eq = flag.indexOf('=');
    if (eq <= 0) {
      throw new UsageError(
        `--input '${flag}' is not name=value`,
        'write --input name=value, e.g. --input threshold=2 (quote values with spaces)',
      );
    }
    const name = flag.slice(0, eq);
    if (Object.hasOwn(given, name)) {
      throw new UsageError(
        `--input ${name} is given twice`,
        'give each input once; lists are written as JSON: --input names=[a,b]',
      );
    }
    Object.defineProperty(given, name, { value: flag.slice(eq + 1), enumerable: true, writable: true });
  }
  return given;
}

export type InputType = NonNullable<InputFile['type']>;

export interface InputProblem {
  message: string;
  expected?: string | undefined;
  hint?: string | undefined;
}

/** The typed value of a `--input` string, or what is wrong with it. */
export function convertInput(
  declaration: InputFile,
  text: string,
): { value: unknown } | { problem: InputProblem } {
  const type: InputType = declaration.type ?? 'string';
  const bad = (what: string, hint?: string): { problem: InputProblem } => ({
    problem: { message: `${showValue(text)} is not ${what}`, expected: type, hint },
  });
  let value: unknown;
  switch (type) {
    case 'string':
      value = text;
      break;
    case 'integer':
      if (!/^[+-]?\d+$/.test(text.trim())) return bad('an integer');
      value = Number(text);
      if (!Number.isSafeInteger(value))
        return bad('an integer JavaScript can hold exactly', 'give it as a string input');
      break;
    case 'number':
      value = Number(text);
      if (text.trim() === '' || !Number.isFinite(value)) return bad('a number');
      break;
    case 'boolean':
      if (text !== 'true' && text !== 'false') return bad('a boolean', 'write true or false');
      value = text === 'true';
      break;
    case 'array':
    case 'object': {
      try {
        value = loadFlow(text);
      } catch (error) {
        if (!(error instanceof jsYaml.YAMLException)) throw error;
        return bad(`${type === 'array' ? 'a list' : 'an object'} in JSON or YAML flow style`, examples[type]);
      }
      if (typeName(value) !== type) return bad(type === 'array' ? 'a list' : 'an object', examples[type]);
      break;
    }
  }
  const problem = valueProblem(declaration, value);
  return problem ? { problem } : { value };
}

const examples = {
  array: 'e.g. --input names=[node1,node2]',
  object: 'e.g. --input limits={max: 3}',
} as const;

/** What is wrong with a typed value (a default, or a converted input) for its declaration, if anything. */
export function valueProblem(declaration: InputFile, value: unknown): InputProblem | undefined {
  const type: InputType = declaration.type ?? 'string';
  const actual = typeName(value);
  const fits =
    type === 'integer'
      ? typeof value === 'number' && Number.isInteger(value)
      : type === 'number'
        ? actual === 'number'
        : actual === type;
  if (!fits) return { message: `expected ${type}, got ${actual}`, expected: type };
  const allowed = declaration.enum;
  if (allowed && !allowed.some((candidate) => sameValue(candidate, value))) {
    const strings = allowed.filter((v): v is string => typeof v === 'string');
    return {
      message: `${showValue(value)} is not an allowed value`,
      expected: `one of ${allowed.map((v) => (typeof v === 'string' ? v : showValue(v))).join(', ')}`,
      hint: typeof value === 'string' ? didYouMean(value, strings) : undefined,
    };
  }
  return undefined;
}

/**
 * The inputs of a run: every given value converted and checked, defaults for the rest. Throws
 * ValidationError('LB_INPUT_INVALID') listing every problem.
 */
export function resolveInputs(playbook: Playbook, given: Record<string, string>): Record<string, unknown> {
  const declared = playbook.inputs;
  const names = Object.keys(declared);
  const problems: Diagnostic[] = [];
  const resolved: Record<string, unknown> = {};
  const set = (name: string, value: unknown): void => {
    Object.defineProperty(resolved, name, { value, enumerable: true, writable: true, configurable: true });
  };
  const flagProblem = (name: string, problem: InputProblem, rule: string): Diagnostic => ({
    file: `--input ${name}=…`,
    line: 1,
    col: 1,
    pointer: childPointer('/inputs', name),
    rule,
    ...problem,
  });

  for (const [name, text] of Object.entries(given)) {
    const declaration = Object.hasOwn(declared, name) ? declared[name] : undefined;
    if (!declaration) {
      problems.push(
        flagProblem(
          name,
          {
            message: `unknown input '${name}'`,
            expected:
              names.length > 0 ? `one of ${names.join(', ')}` : 'no inputs: this playbook declares none',
            hint: didYouMean(name, names),
          },
          'unknown-input',
        ),
      );
      continue;
    }
    const result = convertInput(declaration, text);
    if ('problem' in result) problems.push(flagProblem(name, result.problem, 'input'));
    else set(name, result.value);
  }

  for (const name of names) {
    const declaration = declared[name];
    if (!declaration || Object.hasOwn(given, name)) continue;
    if (Object.hasOwn(declaration, 'default')) {
      set(name, declaration.default);
      continue;
    }
    const position = playbook.source.positionOf(childPointer('/inputs', name), 'key');
    problems.push({
      file: playbook.file,
      ...position,
      pointer: childPointer('/inputs', name),
      rule: 'missing-input',
      message: `missing input '${name}': it has no default`,
      expected: declaration.type ?? 'string',
      hint: `give it with --input ${name}=…${declaration.description ? ` (${declaration.description})` : ''}`,
    });
  }
  if (problems.length > 0) throw new ValidationError('LB_INPUT_INVALID', problems);
  return resolved;
}
