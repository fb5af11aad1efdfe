import { Group } from '@mantine/core';
import { Link, type LinkProps } from '@tanstack/react-router';
import { useEffect, useRef } from 'react';

export interface TabLink {
  readonly label: string;
  readonly to: LinkProps['to'];
  readonly params: LinkProps['params'];
}

/**
 * Tabs that are real links (deep-linkable sections); the current one is marked aria-current="page".
 * They stay on one line (app.css `.rc-tab`) and scroll sideways when the screen is narrower than
 * they are, the current one in view.
 */
export function TabLinks({ label, links }: { label: string; links: readonly TabLink[] }) {
  const nav = useRef<HTMLElement>(null);
  // Only the row of tabs scrolls (never the page): the current tab comes into view.
  useEffect(() => {
    const row = nav.current;
    const active = row?.querySelector<HTMLElement>('[aria-current="page"]');
    if (!row || !active) return;
    const start = active.offsetLeft - row.offsetLeft;
    if (start < row.scrollLeft) row.scrollLeft = start;
    else if (start + active.offsetWidth > row.scrollLeft + row.clientWidth) {
      row.scrollLeft = start + active.offsetWidth - row.clientWidth;
    }
  });
  return (
    <nav aria-label={label} ref={nav} style={{ overflowX: 'auto' }}>
      <Group gap={0} wrap="nowrap" style={{ borderBottom: '1px solid var(--mantine-color-default-border)' }}>
        {links.map((link) => (
          <Link
            key={link.label}
            to={link.to}
            params={link.params}
            className="rc-tab"
            activeProps={{ 'aria-current': 'page' }}
          >
            {link.label}
          </Link>
        ))}
      </Group>
    </nav>
  );
}
