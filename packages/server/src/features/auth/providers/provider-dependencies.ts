import type { Logger } from 'pino';
import type { UnitOfWork } from '../../../core/index.js';
import type { Clock } from '../../../platform/clock.js';
import type { AppConfig } from '../../../platform/config/app-config.js';
import type { IdGenerator } from '../../../platform/ids.js';
import type { ClaimSettings } from '../identity/identity.js';

/** What every sign-in provider is made with (no transport: the SAML and OpenID logic use it too). */
export interface AuthProviderDependencies {
  readonly config: AppConfig;
  readonly uow: UnitOfWork;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly logger: Logger;
  readonly claimSettings: ClaimSettings;
}
