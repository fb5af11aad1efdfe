import type { Entry } from '@realtime-config/protocol/rest';

export interface EditorProps {
  readonly entry: Pick<Entry, 'key' | 'valueType' | 'enumDefinition'>;
  /** The value shown: the pending edit, or the stored value. */
  readonly value: string | null;
  readonly onChange: (raw: string | null) => void;
  /** The server's rule this value breaks, checked as the user types. */
  readonly error?: string | null | undefined;
  readonly disabled?: boolean | undefined;
  /** Ids of elements that describe the field (why it is disabled, what changed elsewhere). */
  readonly describedBy?: string | undefined;
}
