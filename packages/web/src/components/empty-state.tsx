import { Paper, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';

/** What an empty list shows: what is missing and what to do next. */
export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <Paper withBorder p="xl" radius="md">
      <Stack gap="xs" align="flex-start">
        <Title order={2} size="h4">
          {title}
        </Title>
        {typeof children === 'string' ? <Text c="dimmed">{children}</Text> : children}
      </Stack>
    </Paper>
  );
}
