"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useState } from "react";
import { isClientError } from "./_lib/api";
import { LiveEvents } from "./_lib/live-events";
import { Shortcuts } from "./_lib/shortcuts";

export function Providers({ children }: { children: React.ReactNode }) {
  const [client] = useState(
    () =>
      new QueryClient({
        defaultOptions: {
          // A 404 (an unknown conversation) is shown at once, not after retries; other failures get one more try.
          queries: { staleTime: 2_000, retry: (failures, error) => !isClientError(error) && failures < 1, refetchOnWindowFocus: true },
        },
      }),
  );
  return (
    <QueryClientProvider client={client}>
      <LiveEvents />
      <Shortcuts />
      {children}
    </QueryClientProvider>
  );
}
