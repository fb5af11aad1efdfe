import { Fragment } from 'react';

/**
 * An entry key that wraps after its ":" separators before anywhere else (with .rc-key), so a narrow
 * column shows `Payments:` / `TimeoutSeconds` rather than a letter or two per line.
 */
export function KeyText({ value }: { value: string }) {
  const segments = value.split(':');
  return (
    <span className="rc-key">
      {segments.map((segment, index) => (
        <Fragment key={index}>
          {segment}
          {index < segments.length - 1 && (
            <>
              :<wbr />
            </>
          )}
        </Fragment>
      ))}
    </span>
  );
}
