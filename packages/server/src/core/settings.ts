/** Values every instance shares through the database (the cookie-signing secret). */
export interface SettingsStore {
  /** The stored value of the key; when there is none yet, `candidate` is stored and returned (first writer wins). */
  getOrCreate(key: string, candidate: string): Promise<string>;
}
