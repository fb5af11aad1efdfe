import { Group } from '@mantine/core';
import { Link, type LinkProps } from '@tanstack/react-router';

export interface TabLink {
  readonly label: string;
  readonly to: LinkProps['to'];
  readonly params: LinkProps['params'];
}

/**
 * Tabs that are real links (deep-linkable sections); the current one is marked aria-current="page".
 * A screen narrower than the row of tabs (a phone) wraps them onto a second line: every tab stays in
 * sight, where a row that scrolls sideways would hide the last ones without a sign that they exist.
 */
export function TabLinks({ label, links }: { label: string; links: readonly TabLink[] }) {
  return (
    <nav aria-label={label}>
      <Group gap={0} wrap="wrap" style={{ borderBottom: '1px solid var(--mantine-color-default-border)' }}>
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
