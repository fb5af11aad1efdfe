/**
 * Who a stream or an answer is for: callers allowed to read secrets, or everyone else, who receive
 * the version without its secret entries (and never learn of their changes).
 */
export type Audience = 'secrets' | 'public';

/** The newest entry change of a version each audience is sent (0 when none): what "up to date" means for it. */
export type NewestChanges = Readonly<Record<Audience, number>>;
