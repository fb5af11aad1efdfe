/** The environment variable naming the browser tests' own console build (set by build-console.ts). */
export const TEST_CONSOLE_DIR_VARIABLE = 'RC_TEST_CONSOLE_DIR';
