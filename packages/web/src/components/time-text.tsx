/** An ISO time shown in the user's locale, with the exact value as the machine-readable datetime. */
export function TimeText({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <>—</>;
  return (
    <time dateTime={iso} title={iso}>
      {new Date(iso).toLocaleString()}
    </time>
  );
}
