import { Text, type TextProps } from '@mantine/core';
import type { ReactNode } from 'react';

/**
 * Why an action is disabled on a protected version: the server refuses every direct change of its
 * entries (creating, deleting, editing details; 409), and its values change through change requests.
 * The disabled controls point at it with aria-describedby.
 */
export function ProtectedNote({
  id,
  children,
  ...props
}: { readonly id: string; readonly children?: ReactNode } & TextProps) {
  return (
    <Text id={id} size="sm" c="dimmed" {...props}>
      This version is protected: changes go through a change request.{children ? <> {children}</> : null}
    </Text>
  );
}
