// The YAML worker when the server runs from its TypeScript sources (tests, `npm run dev`): worker
// threads of Node 20 do not inherit tsx's loader, so this file registers it before loading the worker.
// The built server starts dist/…/yaml-worker.js instead.
import { register } from 'tsx/esm/api';

register();
export const { parse, stringify } = await import('./yaml-worker.ts');
