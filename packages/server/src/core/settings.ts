/**
 * Values every instance shares through the database: the fingerprint key of secret values and the
 * cookie-signing secret, both sealed by the master key when there is one (`SecretKeys.sealedSetting`).
 */
export interface SettingsStore {
  /** The stored value of the key; when there is none yet, `candidate` is stored and returned (first writer wins). */
  getOrCreate(key: string, candidate: string): Promise<string>;
  /** Every stored setting, key → value. */
  all(): Promise<ReadonlyMap<string, string>>;
  /** Replaces the value only if it is still `expected` (another instance may have replaced it); false if not. */
  replace(key: string, expected: string, value: string): Promise<boolean>;
}
