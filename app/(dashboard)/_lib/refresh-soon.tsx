"use client";

import { useRouter } from "next/navigation";
import { useEffect } from "react";

/** Re-renders the server page every second, at most `times` times: for a record written a moment after what links to it. */
export function RefreshSoon({ times = 20 }: { times?: number }) {
  const router = useRouter();
  useEffect(() => {
    let left = times;
    const timer = setInterval(() => {
      if (left-- <= 0) clearInterval(timer);
      else router.refresh();
    }, 1_000);
    return () => clearInterval(timer);
  }, [router, times]);
  return null;
}
