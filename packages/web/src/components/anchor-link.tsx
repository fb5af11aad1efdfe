import { Anchor, type AnchorProps } from '@mantine/core';
import { createLink, type LinkComponent } from '@tanstack/react-router';
import { forwardRef, type AnchorHTMLAttributes } from 'react';

const MantineAnchor = forwardRef<HTMLAnchorElement, AnchorProps & AnchorHTMLAttributes<HTMLAnchorElement>>(
  function MantineAnchor(props, ref) {
    return <Anchor ref={ref} {...props} />;
  },
);

const CreatedAnchorLink = createLink(MantineAnchor);

/** A router link (typed `to` and `params`) that looks like a Mantine Anchor. */
export const AnchorLink: LinkComponent<typeof MantineAnchor> = (props) => (
  <CreatedAnchorLink preload="intent" {...props} />
);
