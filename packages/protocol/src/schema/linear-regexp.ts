import { RE2JS } from 're2js';

/**
 * Ajv's regular-expression engine for `pattern` and `patternProperties`: RE2 (re2js, pure
 * JavaScript), which matches in time linear in the input, so a pattern such as `^(a+)+$` from a
 * schema cannot stall the process the way a backtracking engine would (docs/adr/0012). It has no
 * lookaround and no backreferences: a schema using them is refused when it is set.
 */
export function linearTimeRegExp(pattern: string): { test(text: string): boolean; toString(): string } {
  const compiled = RE2JS.compile(pattern);
  // Ajv keeps one compiled pattern per distinct toString(): it must name the pattern.
  return { test: (text) => compiled.test(text), toString: () => `re2:${pattern}` };
}
// Ajv generates standalone code with this expression when asked to; it never is here.
linearTimeRegExp.code = 'linearTimeRegExp';
