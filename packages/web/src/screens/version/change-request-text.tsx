import { Textarea, TextInput } from '@mantine/core';

/** The fields of a change request a problem answer can name. */
export const CHANGE_REQUEST_FIELDS = ['title', 'description'];

/** The title and description as sent: trimmed, an empty description as null. */
export function changeRequestText(title: string, description: string): { title: string; description: string | null } {
  return { title: title.trim(), description: description.trim() === '' ? null : description.trim() };
}

interface ChangeRequestTextProps {
  readonly title: string;
  readonly description: string;
  readonly onTitle: (title: string) => void;
  readonly onDescription: (description: string) => void;
  /** Whether to say that the title is missing (after a submit without one). */
  readonly titleMissing: boolean;
  /** The server's message about a field, if its answer named one. */
  readonly fieldError: (field: string) => string | undefined;
}

/** A change request's title and description, as opening and editing one ask for them. */
export function ChangeRequestText(props: ChangeRequestTextProps) {
  return (
    <>
      <TextInput
        label="Title"
        required
        data-autofocus
        value={props.title}
        onChange={(e) => props.onTitle(e.currentTarget.value)}
        error={props.titleMissing ? 'Give the request a title.' : props.fieldError('title')}
      />
      <Textarea
        label="Description"
        description="Why, for the reviewer (optional)"
        autosize
        minRows={2}
        value={props.description}
        onChange={(e) => props.onDescription(e.currentTarget.value)}
        error={props.fieldError('description')}
      />
    </>
  );
}
