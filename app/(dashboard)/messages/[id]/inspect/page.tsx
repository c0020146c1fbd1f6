import Link from "next/link";
import { redirect } from "next/navigation";
import { findTurnForMessage } from "@/lib/db/turns";
import { getApp } from "@/lib/server/wiring";

export const dynamic = "force-dynamic";

/** Resolves a message to the agent turn behind it and opens the prompt inspector there. */
export default async function InspectMessagePage({ params }: { params: Promise<{ id: string }> }) {
  const id = Number((await params).id);
  const turnId = Number.isSafeInteger(id) && id > 0 ? await findTurnForMessage((await getApp()).db, id) : null;
  if (turnId !== null) redirect(`/turns/${turnId}`);
  return (
    <>
      <h1>Prompt inspector</h1>
      <p className="panel muted" role="status">
        No agent turn belongs to message #{id}: the agent neither answered it nor wrote it.{" "}
        <Link href={`/messages/${id}`}>Open its thread</Link>
      </p>
    </>
  );
}
