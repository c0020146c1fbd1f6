"use client";

import { Fragment } from "react";

const entities: Record<string, string> = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'" };

/**
 * A search snippet (escaped text with <mark> around hits) as React nodes: only
 * <mark> becomes an element, everything else is text. Never set as HTML, so
 * even a snippet that was not escaped could not inject markup.
 */
export function Snippet({ markup }: { markup: string }) {
  const parts = markup.split(/(<mark>|<\/mark>)/);
  let marked = false;
  return (
    <>
      {parts.map((part, i) => {
        if (part === "<mark>") {
          marked = true;
          return null;
        }
        if (part === "</mark>") {
          marked = false;
          return null;
        }
        const text = part.replace(/&(?:amp|lt|gt|quot|#39);/g, (e) => entities[e] ?? e);
        // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one immutable snippet; their position is their identity.
        return marked ? <mark key={i}>{text}</mark> : <Fragment key={i}>{text}</Fragment>;
      })}
    </>
  );
}
