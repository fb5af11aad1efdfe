/**
 * Size limits of an entry's fields (CONTRACT §4), the same for the REST API and for versions
 * registered over gRPC (CreateVersion), in characters (Unicode code points).
 */
export const ENTRY_LIMITS = {
  key: 512,
  name: 200,
  rawValue: 256 * 1024,
  enumDefinition: 4000,
  description: 4000,
  groupName: 200,
  groupDescription: 4000,
} as const;

/** Code points of a text; counted only when its UTF-16 length could exceed the limit. */
export function exceedsLength(text: string, max: number): boolean {
  if (text.length <= max) return false;
  let count = 0;
  for (const _ of text) if (++count > max) return true;
  return false;
}
