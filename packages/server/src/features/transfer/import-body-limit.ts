import type { VersionCaps } from '../../core/index.js';

/**
 * The largest body the import route accepts: an export of a version at its caps, in the largest
 * format (json; yaml and env are smaller), with its metadata, so any exported file imports back.
 * Versions:MaxBytes counts every text of an entry once, in UTF-8. A file writes each text once and
 * each key a second time (in `entries`), and JSON escaping makes at most 6 bytes of one (a control
 * character becomes `\u00XX`): 2 × 6 × MaxBytes. Around them each entry has at most 512 bytes of
 * structure (quotes, field names, type names, nulls, indentation: about 200 in practice), and the
 * header fits in 64 KiB. With the default caps: 12 × 3.5 MiB + 5 MB + 64 KiB ≈ 49 MB; an everyday
 * export of a full version is far smaller (about 6 MB). The body limit of every other route stays 1 MiB.
 */
export function importBodyLimit(caps: VersionCaps): number {
  return 12 * caps.maxBytes + 512 * caps.maxEntries + 64 * 1024;
}
