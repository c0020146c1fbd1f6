import Link from "next/link";
import { redirect } from "next/navigation";
import { findTurnForMessage, messageStoredAt } from "@/lib/db/turns";
import { recordIdParam } from "@/lib/record-id";
import { getApp } from "@/lib/server/wiring";
import { RefreshSoon } from "../../../_lib/refresh-soon";

export const dynamic = "force-dynamic";

/** Resolves a message to the agent turn behind it and opens the prompt inspector there. */
export default async function InspectMessagePage({ params }: { params: Promise<{ id: string }> }) {
  const raw = (await params).id;
  const parsed = recordIdParam.safeParse(raw);
  const { db } = await getApp();
  const turnId = parsed.success ? await findTurnForMessage(db, parsed.data) : null;
  if (turnId !== null) redirect(`/turns/${turnId}`);
  // The answer is stored as it is sent, its turn when the model call ends: a link followed
  // at once can arrive between the two. A message this fresh is waited for, not declared turnless.
  const storedAt = parsed.success ? await messageStoredAt(db, parsed.data) : null;
  if (storedAt && Date.now() - storedAt.getTime() < 60_000) {
    return (
      <>
        <h1>Prompt inspector</h1>
        <p className="panel muted" role="status">
          Message #{parsed.data} is new: its agent turn may still be being recorded. This page retries for a few seconds.
        </p>
        <RefreshSoon />
      </>
    );
  }
  return (
    <>
      <h1>Prompt inspector</h1>
      <p className="panel muted" role="status">
        No agent turn belongs to message #{raw}: the agent neither answered it nor wrote it.{" "}
        {parsed.success && <Link href={`/messages/${parsed.data}`}>Open its thread</Link>}
      </p>
    </>
  );
}
