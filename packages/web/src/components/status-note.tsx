import { Text } from '@mantine/core';
import { useCallback, useEffect, useState } from 'react';

/** How long a note stays: long enough to read, then it goes by itself. */
const SHOWN_MS = 8000;

/**
 * A short message that something worked ("Saved 2 values"), said in the page's own flow beside what
 * it is about, not floating over it: a floating message covers whatever buttons are under it (the
 * version page's New entry, Edit version, Delete version). Screen readers hear it (role status).
 */
export function useStatusNote() {
  const [note, setNote] = useState<{ text: string; at: number } | null>(null);
  useEffect(() => {
    if (!note) return;
    const timer = setTimeout(() => setNote(null), SHOWN_MS);
    return () => clearTimeout(timer);
  }, [note]);
  const show = useCallback((text: string) => setNote({ text, at: Date.now() }), []);
  return { text: note?.text ?? null, show };
}

/** The note's place: always in the page (so its changes are announced), empty when there is none. */
export function StatusNote({ text }: { text: string | null }) {
  return (
    <Text role="status" size="sm" fw={600}>
      {text}
    </Text>
  );
}
