import { PasswordInput, type PasswordInputProps } from '@mantine/core';

/**
 * A password field whose show/hide toggle is not named after the field: Mantine's default
 * ("Toggle password visibility") would make `getByLabel('Password')` find two elements.
 */
export function SecretInput(props: PasswordInputProps) {
  return <PasswordInput visibilityToggleButtonProps={{ 'aria-label': 'Show or hide the text' }} {...props} />;
}
