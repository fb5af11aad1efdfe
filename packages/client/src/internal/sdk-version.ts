/** The version of this package (package.json's; a test keeps them equal), sent as x-rc-sdk. */
export const SDK_VERSION = '0.1.0';
