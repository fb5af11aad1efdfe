import { useLayoutEffect, useRef } from 'react';

function merge(element: HTMLElement, ids: readonly string[], previous: readonly string[]): void {
  const current = element.getAttribute('aria-describedby') ?? '';
  const own = current.split(' ').filter((id) => id && !previous.includes(id) && !ids.includes(id));
  const next = [...own, ...ids].join(' ');
  if (next === current) return;
  if (next) element.setAttribute('aria-describedby', next);
  else element.removeAttribute('aria-describedby');
}

/**
 * Adds ids to a field's aria-describedby. Mantine sets that attribute from its own description and
 * error (and drops one given as a prop), also in re-renders of its own; the row's notes (why the
 * field is read-only, that the value changed elsewhere) must reach screen readers too.
 */
export function useExtraDescription<T extends HTMLElement>(extra: string | undefined) {
  const ref = useRef<T>(null);
  const added = useRef<string[]>([]);
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return;
    const ids = extra ? extra.split(' ').filter(Boolean) : [];
    merge(element, ids, added.current);
    added.current = ids;
    const observer = new MutationObserver(() => merge(element, ids, []));
    observer.observe(element, { attributes: true, attributeFilter: ['aria-describedby'] });
    return () => observer.disconnect();
  }, [extra]);
  return ref;
}
