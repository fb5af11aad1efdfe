import { useMediaQuery } from '@mantine/hooks';

/** The width where the stacked layouts of app.css start (Mantine's `sm` breakpoint): phones. */
export const NARROW_QUERY = '(max-width: 47.99em)';

/** True on a phone-sized screen, for what CSS alone cannot change (a drawer's size, a tray folded). */
export function useNarrow(): boolean {
  return useMediaQuery(NARROW_QUERY, false, { getInitialValueInEffect: false }) ?? false;
}
