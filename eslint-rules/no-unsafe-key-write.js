import ts from 'typescript';

/**
 * Names that, used as a property key of an ordinary object, reach Object.prototype instead of
 * making a property: `o['__proto__'].x = 1` writes on every object of the process, and
 * `o['constructor']['prototype'].x = 1` does the same.
 */
const PROTOTYPE_NAMES = new Set(['__proto__', 'constructor', 'prototype']);

/** The brand that `dictionary()` gives its objects (each package's `dictionary.ts`). */
const BRAND = 'nullPrototype';

const isBrand = (symbol) => {
  const name = String(symbol.escapedName);
  return name === BRAND || name.startsWith(`__@${BRAND}@`);
};

/** A key that cannot be one of the prototype names: numbers, symbols, harmless string literals. */
function isSafeKeyType(type) {
  if (type.isUnion()) return type.types.every(isSafeKeyType);
  if (type.flags & (ts.TypeFlags.NumberLike | ts.TypeFlags.BigIntLike | ts.TypeFlags.ESSymbolLike)) return true;
  if (type.isStringLiteral()) return !PROTOTYPE_NAMES.has(type.value);
  return false;
}

/** An object made by dictionary(): it has no prototype, so any key is an own property. */
function isDictionary(checker, type) {
  if (type.isUnion()) {
    return type.types.every((t) => t.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined) || isDictionary(checker, t));
  }
  return checker.getPropertiesOfType(type).some(isBrand);
}

/** @type {import('eslint').Rule.RuleModule} */
export const noUnsafeKeyWrite = {
  meta: {
    type: 'problem',
    docs: {
      description:
        'Disallow writing a computed string key into an ordinary object: a key such as __proto__ reaches Object.prototype.',
    },
    messages: {
      unsafeWrite:
        'A computed key written into an ordinary object can be __proto__, constructor or prototype and reach Object.prototype. Use a Map, or an object without prototype from dictionary() (packages/server/src/platform/dictionary.ts).',
    },
    schema: [],
  },
  create(context) {
    const services = context.sourceCode.parserServices;
    const checker = services?.program?.getTypeChecker();
    const typeOf = (node) => checker.getTypeAtLocation(services.esTreeNodeToTSNodeMap.get(node));

    const check = (target) => {
      if (target.type !== 'MemberExpression' || !target.computed) return;
      const key = target.property;
      if (key.type === 'Literal' && !(typeof key.value === 'string' && PROTOTYPE_NAMES.has(key.value))) return;
      if (
        checker &&
        ((key.type !== 'Literal' && isSafeKeyType(typeOf(key))) || isDictionary(checker, typeOf(target.object)))
      )
        return;
      context.report({ node: target, messageId: 'unsafeWrite' });
    };

    return {
      AssignmentExpression: (node) => check(node.left),
      UpdateExpression: (node) => check(node.argument),
    };
  },
};

export const localPlugin = { rules: { 'no-unsafe-key-write': noUnsafeKeyWrite } };
