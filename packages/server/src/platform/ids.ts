import { randomUUID } from 'node:crypto';

/** Id generation, injected so tests can make ids predictable. */
export interface IdGenerator {
  newId(): string;
}

export const randomIds: IdGenerator = { newId: () => randomUUID() };

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return uuidPattern.test(value);
}
