import path from 'node:path';
import { RuleTester } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, it } from 'vitest';
import { noUnsafeKeyWrite } from './no-unsafe-key-write.js';

RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.itOnly = it.only;

const fixtures = path.join(import.meta.dirname, 'fixtures');
const tester = new RuleTester({
  languageOptions: {
    parser: tseslint.parser,
    parserOptions: { projectService: true, tsconfigRootDir: fixtures },
  },
});

/** What each package's dictionary.ts declares. */
const DICTIONARY = `
declare const nullPrototype: unique symbol;
type Dictionary<T> = { [key: string]: T } & { readonly [nullPrototype]: true };
declare function dictionary<T>(): Dictionary<T>;
`;
const filename = path.join(fixtures, 'file.ts');
const valid = (code) => ({ code: `${DICTIONARY}${code}`, filename });
const invalid = (code, errors = 1) => ({
  code: `${DICTIONARY}${code}`,
  filename,
  errors: Array.from({ length: errors }, () => ({ messageId: 'unsafeWrite' })),
});

tester.run('no-unsafe-key-write', noUnsafeKeyWrite, {
  valid: [
    // A dictionary takes any key, nested ones too.
    valid(
      `export function f(key: string) { const d = dictionary<string[]>(); (d[key] ??= []).push('x'); d['__proto__'] = []; }`,
    ),
    valid(
      `export function f(keys: string[]) { const root = dictionary<unknown>(); let node = root; for (const k of keys) node = (node[k] ??= dictionary()) as Dictionary<unknown>; }`,
    ),
    // Numeric indexes of arrays and typed arrays, and harmless literal keys.
    valid(`export function f(a: number[], t: Uint8Array, i: number) { a[i] = 1; t[i] = 2; a[i]++; }`),
    valid(`export function f(o: Record<string, number>) { o['count'] = 1; o[\`total\`] = 2; }`),
    valid(`export function f(o: Record<'a' | 'b', number>, k: 'a' | 'b') { o[k] = 1; o[k]++; }`),
    valid(`const S = Symbol('s'); export function f(o: Record<symbol, number>) { o[S] = 1; }`),
    // Maps are written through set().
    valid(`export function f(m: Map<string, number>, k: string) { m.set(k, 1); }`),
    // Reading is not writing.
    valid(`export function f(o: Record<string, number>, k: string) { return o[k]; }`),
  ],
  invalid: [
    invalid(`export function f(o: Record<string, unknown>, k: string) { o[k] = 1; }`),
    invalid(`export function f(o: Record<string, string[]>, k: string) { (o[k] ??= []).push('x'); }`),
    invalid(
      `export function f(k: string) { const root: Record<string, any> = {}; root[k] ??= {}; root[k][k] = 1; }`,
      2,
    ),
    invalid(`export function f(o: Record<string, number>, k: string) { o[k]++; o[k] += 1; }`, 2),
    invalid(`export function f(o: Record<string, unknown>) { o['__proto__'] = {}; }`),
    invalid(`export function f(o: Record<string, unknown>, k: 'a' | 'constructor') { o[k] = 1; }`),
    invalid(`export function f(o: any, k: any) { o[k] = 1; }`),
    // An object made with Object.create(null) carries no brand: the helper is the one way.
    invalid(`export function f(k: string) { const o = Object.create(null) as Record<string, number>; o[k] = 1; }`),
  ],
});
