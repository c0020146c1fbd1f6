"use client";

import { useSyncExternalStore } from "react";

const never = () => () => {};

/**
 * Renders `children` only once the page has hydrated; the server and the hydrating
 * client both render `fallback`. For a page whose first client render would
 * differ from the server's: a Suspense boundary hydrates after the rest of the
 * page, and by then a query its components share with the nav (handoffs, the
 * inbox list) may have landed, so they would hydrate with data the server never
 * had (React error #418).
 */
export function AfterHydration({ fallback, children }: { fallback: React.ReactNode; children: React.ReactNode }) {
  const hydrated = useSyncExternalStore(
    never,
    () => true,
    () => false,
  );
  return hydrated ? children : fallback;
}
