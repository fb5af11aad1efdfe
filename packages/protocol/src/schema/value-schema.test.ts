import { describe, expect, it } from 'vitest';
import { ValueType } from '../gen/konfigo/client/service_pb.js';
import { describeViolations, MAX_VIOLATIONS, schemaProblem, schemaViolations, typedValue } from './value-schema.js';

describe('an entry schema', () => {
  it('is a JSON object that is a valid draft 2020-12 schema', () => {
    expect(schemaProblem({ minimum: 1, maximum: 300 })).toBeNull();
    expect(schemaProblem({ type: 'object', required: ['max'], properties: { max: { type: 'integer' } } })).toBeNull();
    expect(schemaProblem({ $defs: { n: { type: 'number' } }, items: { $ref: '#/$defs/n' } })).toBeNull();
    expect(schemaProblem([1])).toMatch(/JSON Schema object/);
    expect(schemaProblem('x')).toMatch(/JSON Schema object/);
    expect(schemaProblem(true)).toMatch(/JSON Schema object/);
    expect(schemaProblem({ minimum: 'one' })).toMatch(/not a valid JSON Schema.*minimum/);
    // Strict: a keyword nobody knows, or an unknown format, is a typo, not a rule.
    expect(schemaProblem({ minimun: 1 })).toMatch(/unknown keyword.*minimun/);
    expect(schemaProblem({ format: 'colour' })).toMatch(/unknown format "colour"/);
  });

  it('refers to nothing outside itself and is at most 64 KiB', () => {
    expect(schemaProblem({ $ref: 'https://example.com/s.json' })).toMatch(/only to itself/);
    expect(schemaProblem({ items: { $ref: 'other.json#/x' } })).toMatch(/only to itself/);
    expect(schemaProblem({ $id: 'https://example.com/root', items: { $ref: '#' } })).toMatch(/only to itself/);
    expect(schemaProblem({ description: 'x'.repeat(64 * 1024) })).toMatch(/at most 64 KiB/);
    expect(schemaProblem({ description: 'x'.repeat(60 * 1024) })).toBeNull();
  });

  it('refuses patterns the linear-time engine cannot run (lookaround, backreferences)', () => {
    expect(schemaProblem({ pattern: '(?<=a)b' })).toMatch(/not a valid JSON Schema/);
    expect(schemaProblem({ pattern: '(a)\\1' })).toMatch(/not a valid JSON Schema/);
    expect(schemaProblem({ pattern: '^https://' })).toBeNull();
  });
});

describe('checking a value against its schema', () => {
  it('takes the value typed: Number a number, Boolean a boolean, Array and Json parsed, others text', () => {
    expect(typedValue(ValueType.NUMBER, '1e3')).toBe(1000);
    expect(typedValue(ValueType.BOOLEAN, 'True')).toBe(true);
    expect(typedValue(ValueType.ARRAY, '[1,2]')).toEqual([1, 2]);
    expect(typedValue(ValueType.JSON, '{"a":1}')).toEqual({ a: 1 });
    expect(typedValue(ValueType.TIME_SPAN, '00:05:00')).toBe('00:05:00');
    expect(typedValue(ValueType.NUMBER, 'abc')).toBeUndefined();
  });

  it('names every rule a value breaks, with where and which keyword', () => {
    const schema = { type: 'object', required: ['max'], properties: { max: { type: 'integer', maximum: 10 } } };
    expect(schemaViolations(schema, ValueType.JSON, '{"max":5}')).toEqual([]);
    expect(schemaViolations(schema, ValueType.JSON, '{"max":50.5}')).toEqual([
      { instancePath: '/max', keyword: 'type', message: 'must be integer' },
      { instancePath: '/max', keyword: 'maximum', message: 'must be <= 10' },
    ]);
    expect(schemaViolations(schema, ValueType.JSON, '{}')).toEqual([
      { instancePath: '', keyword: 'required', message: "must have required property 'max'" },
    ]);
    expect(schemaViolations({ minimum: 1, maximum: 300 }, ValueType.NUMBER, '3000')).toEqual([
      { instancePath: '', keyword: 'maximum', message: 'must be <= 300' },
    ]);
    expect(describeViolations(schemaViolations(schema, ValueType.JSON, '{"max":11}'))).toBe('/max must be <= 10');
  });

  it('lets null through (it means "use the default"), and leaves a value of the wrong type to the type check', () => {
    expect(schemaViolations({ minimum: 1 }, ValueType.NUMBER, null)).toEqual([]);
    expect(schemaViolations({ minimum: 1 }, ValueType.NUMBER, 'not a number')).toEqual([]);
    expect(schemaViolations(null, ValueType.NUMBER, '0')).toEqual([]);
  });

  it('checks formats and patterns of text values', () => {
    expect(schemaViolations({ format: 'uri' }, ValueType.STRING, 'https://example.com/x')).toEqual([]);
    expect(schemaViolations({ format: 'uri' }, ValueType.STRING, 'not a uri')[0]?.keyword).toBe('format');
    expect(schemaViolations({ format: 'email' }, ValueType.STRING, 'a@example.com')).toEqual([]);
    expect(schemaViolations({ pattern: '^https://' }, ValueType.STRING, 'http://x')).toEqual([
      { instancePath: '', keyword: 'pattern', message: 'must match pattern "^https://"' },
    ]);
  });

  it('runs a catastrophic pattern in linear time', () => {
    const schema = { pattern: '^(a+)+$' };
    expect(schemaProblem(schema)).toBeNull();
    // A backtracking engine takes longer than the age of the universe on this input.
    expect(schemaViolations(schema, ValueType.STRING, `${'a'.repeat(50_000)}!`)).toHaveLength(1);
    expect(schemaViolations(schema, ValueType.STRING, 'a'.repeat(50_000))).toEqual([]);
  });

  it('reports at most 100 broken rules', () => {
    const schema = { type: 'array', items: { type: 'string' } };
    const violations = schemaViolations(
      schema,
      ValueType.ARRAY,
      JSON.stringify(Array.from({ length: 500 }, (_, i) => i)),
    );
    expect(violations).toHaveLength(MAX_VIOLATIONS);
  });
});
