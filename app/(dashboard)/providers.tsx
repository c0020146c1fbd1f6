"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useState } from "react";
import { LiveEvents } from "./_lib/live-events";
import { Shortcuts } from "./_lib/shortcuts";

export function Providers({ children }: { children: React.ReactNode }) {
  const [client] = useState(
    () => new QueryClient({ defaultOptions: { queries: { staleTime: 2_000, retry: 1, refetchOnWindowFocus: true } } }),
  );
  return (
    <QueryClientProvider client={client}>
      <LiveEvents />
      <Shortcuts />
      {children}
    </QueryClientProvider>
  );
}
