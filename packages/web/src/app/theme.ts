import { createTheme, Drawer, Modal, type CSSVariablesResolver } from '@mantine/core';

export const theme = createTheme({
  primaryColor: 'blue',
  // Shade 8 keeps links, outline buttons and badges at 4.5:1 or more on white (WCAG AA); Mantine's 6 does not.
  primaryShade: { light: 8, dark: 8 },
  defaultRadius: 'md',
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
  fontFamilyMonospace: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace',
  // Keyboard users always see where they are; mouse clicks do not leave a ring behind.
  focusRing: 'auto',
  // Transitions are skipped for users who ask the system for less motion.
  respectReducedMotion: true,
  components: {
    // Every close button says what it does to a screen reader.
    Modal: Modal.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } }),
    Drawer: Drawer.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } }),
  },
});

/** Dimmed text dark enough (light) and light enough (dark) for 4.5:1 contrast on the page background. */
export const cssVariablesResolver: CSSVariablesResolver = (t) => ({
  variables: {},
  light: { '--mantine-color-dimmed': t.colors.gray[7] ?? '#495057' },
  dark: { '--mantine-color-dimmed': t.colors.dark[1] ?? '#b8b8b8' },
});
