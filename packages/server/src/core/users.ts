export type LocalRole = 'admin' | 'developer';

export interface UserRecord {
  readonly username: string;
  readonly passwordHash: string;
  readonly role: LocalRole;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** When the password was last set; sessions signed in before then have ended. */
  readonly passwordChangedAt: number;
  /** The password must be changed before the account is used (the seeded default password). */
  readonly mustChangePassword: boolean;
}

export interface UserChange {
  readonly password?: { readonly hash: string; readonly changedAt: number; readonly mustChange: boolean };
  readonly role?: LocalRole;
  readonly updatedAt: number;
}

export interface UserStore {
  list(): Promise<UserRecord[]>;
  get(username: string): Promise<UserRecord | undefined>;
  insert(user: UserRecord): Promise<void>;
  update(username: string, change: UserChange): Promise<void>;
  delete(username: string): Promise<boolean>;
  /** Counts the users with the role and locks their rows until the transaction ends. */
  countByRole(role: LocalRole): Promise<number>;
}
