import { describe, expect, it } from 'vitest';
import { describePattern } from './patterns.js';
import { playbookSchema } from './playbook-schema.js';
import { targetSchema } from './target-schema.js';

function patterns(schema: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) for (const item of schema) patterns(item, found);
  else if (typeof schema === 'object' && schema !== null) {
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'pattern' && typeof value === 'string') found.add(value);
      else patterns(value, found);
    }
  }
  return found;
}

describe('describePattern', () => {
  it.each([...patterns(playbookSchema), ...patterns(targetSchema)])(
    'has words and an example for %s',
    (pattern) => {
      const words = describePattern(pattern);
      expect(words?.rule).toBeTruthy();
      expect(new RegExp(pattern).test(words?.example.split(' or ')[0]?.split(', ')[0] ?? '')).toBe(true);
    },
  );

  it('tells a step id from another name with the same pattern', () => {
    expect(describePattern('^[a-z][a-z0-9_-]*$', 'id')?.noun).toBe('step id');
    expect(describePattern('^[a-z][a-z0-9_-]*$', 'coordinator')?.noun).toBe('name');
    expect(describePattern('^x$')).toBeUndefined();
  });
});
