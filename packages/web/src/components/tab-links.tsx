import { Group } from '@mantine/core';
import { Link, type LinkProps } from '@tanstack/react-router';

export interface TabLink {
  readonly label: string;
  readonly to: LinkProps['to'];
  readonly params: LinkProps['params'];
}

const tabStyle = {
  padding: '8px 12px',
  borderBottom: '2px solid transparent',
  color: 'inherit',
  textDecoration: 'none',
};

/** Tabs that are real links (deep-linkable sections); the current one is marked aria-current="page". */
export function TabLinks({ label, links }: { label: string; links: readonly TabLink[] }) {
  return (
    <nav aria-label={label}>
      <Group gap={0} style={{ borderBottom: '1px solid var(--mantine-color-default-border)' }}>
        {links.map((link) => (
          <Link
            key={link.label}
            to={link.to}
            params={link.params}
            style={tabStyle}
            activeProps={{
              'aria-current': 'page',
              style: { ...tabStyle, borderBottomColor: 'var(--mantine-primary-color-filled)', fontWeight: 600 },
            }}
          >
            {link.label}
          </Link>
        ))}
      </Group>
    </nav>
  );
}
