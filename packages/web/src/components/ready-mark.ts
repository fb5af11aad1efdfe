import { useEffect } from 'react';

/**
 * Sets a performance mark once a screen shows its data, for the time-to-interactive benchmark
 * (bench/ui-bench.ts reads `performance.getEntriesByName(name)`).
 */
export function useReadyMark(name: string, ready: boolean): void {
  useEffect(() => {
    if (ready && performance.getEntriesByName(name).length === 0) performance.mark(name);
  }, [name, ready]);
}
