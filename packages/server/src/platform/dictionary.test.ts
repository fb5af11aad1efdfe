import { describe, expect, it } from 'vitest';
import { dictionary, type Dictionary } from './dictionary.js';

const RESERVED = ['__proto__', 'constructor', 'prototype'];
const prototypeMembers = () => Object.getOwnPropertyNames(Object.prototype).sort();

describe('dictionary', () => {
  it('has no prototype: every name, __proto__ included, is an own member', () => {
    const before = prototypeMembers();
    const d = dictionary<unknown>();
    expect(Object.getPrototypeOf(d)).toBeNull();
    expect(d.constructor).toBeUndefined();
    for (const name of RESERVED) d[name] = { polluted: true };
    expect(Object.keys(d)).toEqual(RESERVED);
    expect(Object.getPrototypeOf(d)).toBeNull(); // writing __proto__ made a member, not a prototype
    expect(JSON.stringify(d)).toBe(
      '{"__proto__":{"polluted":true},"constructor":{"polluted":true},"prototype":{"polluted":true}}',
    );
    expect(prototypeMembers()).toEqual(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('nests by segments without reaching Object.prototype (what an export does)', () => {
    const before = prototypeMembers();
    const root = dictionary<unknown>();
    for (const key of ['__proto__:polluted', 'constructor:prototype:isAdmin', 'App:prototype:x']) {
      const segments = key.split(':');
      let node = root;
      for (const segment of segments.slice(0, -1)) node = (node[segment] ??= dictionary()) as Dictionary<unknown>;
      node[segments.at(-1) as string] = true;
    }
    expect(JSON.parse(JSON.stringify(root))).toEqual(
      JSON.parse(
        '{"__proto__":{"polluted":true},"constructor":{"prototype":{"isAdmin":true}},"App":{"prototype":{"x":true}}}',
      ),
    );
    expect(prototypeMembers()).toEqual(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    expect(Object.prototype.constructor).toBe(Object);
  });

  it('is filled from entries in order, a later entry of a key winning', () => {
    const d = dictionary([
      ['a', 1],
      ['__proto__', 2],
      ['a', 3],
    ]);
    expect(Object.entries(d)).toEqual([
      ['a', 3],
      ['__proto__', 2],
    ]);
    expect(Object.getPrototypeOf(d)).toBeNull();
  });
});
