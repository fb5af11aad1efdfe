import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  AUDIT_ACTION_WORDS,
  ENTITY_TYPE_WORDS,
  POLICY_WORDS,
  SCOPE_WORDS,
  actionWords,
  entityTypeWords,
  identifierWords,
  policyWords,
} from './vocabulary.js';

const concepts = readFileSync(new URL('../../../docs/concepts.md', import.meta.url), 'utf8');
/** The page's prose with its line breaks as spaces (Prettier wraps it anywhere). */
const prose = concepts.replace(/\s+/g, ' ');

describe('the vocabulary of the console, the CLI and the docs', () => {
  it('is the one docs/concepts.md explains: each permission by its words beside its identifier', () => {
    for (const [policy, words] of Object.entries(POLICY_WORDS)) {
      const row = concepts.split('\n').find((line) => line.includes(`| \`${policy}\``));
      expect(row, policy).toBeDefined();
      expect(row).toContain(`**${words.name}**`);
      expect(row).toContain(words.meaning);
    }
    for (const [scope, words] of Object.entries(SCOPE_WORDS)) {
      expect(prose, scope).toContain(`\`${scope}\` (${words.meaning})`);
    }
  });

  it('says every known identifier in words, and a newer one as words too', () => {
    for (const words of [...Object.values(AUDIT_ACTION_WORDS), ...Object.values(ENTITY_TYPE_WORDS)]) {
      expect(words).not.toMatch(/[a-z][A-Z]/);
    }
    expect(actionWords('ValueSet')).toBe('Value set');
    expect(entityTypeWords('ApiKey')).toBe('API key');
    expect(actionWords('RolloutStepped')).toBe('Rollout moved to its next step');
    expect(actionWords('CanaryStarted')).toBe('Canary started');
    expect(identifierWords('canDeploy')).toBe('Can deploy');
    expect(policyWords('canAll').name).toBe('Administer');
    expect(policyWords('canDeploy')).toEqual({ name: 'Can deploy', meaning: 'Can deploy' });
    expect(actionWords('constructor')).toBe('Constructor');
  });
});
