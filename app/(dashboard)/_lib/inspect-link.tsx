import Link from "next/link";

/**
 * "Prompt inspector" for any message: the agent turn that answered it, or that
 * produced it (resolved on the server by /messages/{id}/inspect).
 */
export function InspectLink({ messageId, children = "Prompt inspector" }: { messageId: number; children?: React.ReactNode }) {
  return (
    <Link href={`/messages/${messageId}/inspect`} prefetch={false} data-testid="inspect-link">
      {children}
    </Link>
  );
}
