import { noMasterKey, type SecretCipher, type UnitOfWork } from '../../core/index.js';

/** The master key's rotation, for the canAll route that asks for it. */
export class SecretCommands {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly cipher: SecretCipher,
  ) {}

  /** Every sealed value re-wrapped with the current master key; answers how many were. */
  async rotate(): Promise<number> {
    if (!this.cipher.ready) throw noMasterKey();
    return await this.uow.write((ctx) => ctx.secrets.rewrapAll());
  }
}
