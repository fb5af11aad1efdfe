/**
 * "Did you mean …?" for configuration names: the known name closest to a misspelled one, if one is
 * close enough to be what was meant. Distance is the optimal string alignment distance (insertions,
 * deletions, substitutions and swaps of two neighbours, each 1), ignoring case.
 */
export function nearestName(name: string, known: Iterable<string>): string | undefined {
  const wanted = name.toLowerCase();
  // Short names tolerate one slip, longer ones one in three characters (at most 3).
  const tolerance = Math.min(3, Math.max(1, Math.floor(wanted.length / 3)));
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(wanted, candidate.toLowerCase());
    if (distance <= tolerance && (best === undefined || distance < best.distance)) best = { name: candidate, distance };
  }
  return best?.name;
}

/** Optimal string alignment distance between `a` and `b`. */
export function editDistance(a: string, b: string): number {
  const width = b.length + 1;
  // Row-major (a.length + 1) × (b.length + 1) table of distances between prefixes.
  const d = new Array<number>((a.length + 1) * width).fill(0);
  const at = (i: number, j: number): number => d[i * width + j] ?? 0;
  for (let i = 0; i <= a.length; i++) d[i * width] = i;
  for (let j = 0; j <= b.length; j++) d[j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let distance = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        distance = Math.min(distance, at(i - 2, j - 2) + 1);
      d[i * width + j] = distance;
    }
  }
  return at(a.length, b.length);
}
