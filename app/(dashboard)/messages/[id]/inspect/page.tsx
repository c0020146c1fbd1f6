import { cookies } from "next/headers";
import Link from "next/link";
import { notFound, redirect } from "next/navigation";
import { operatorOfSession, SESSION_COOKIE } from "@/lib/auth/operators";
import { inspectTargetOf } from "@/lib/pipeline/inspect-target";
import { getApp } from "@/lib/server/wiring";
import { RefreshSoon } from "../../../_lib/refresh-soon";

export const dynamic = "force-dynamic";

/** Resolves a message to the agent turn behind it and opens the prompt inspector there. */
export default async function InspectMessagePage({ params }: { params: Promise<{ id: string }> }) {
  const raw = (await params).id;
  const { db } = await getApp();
  const operator = await operatorOfSession(db, (await cookies()).get(SESSION_COOKIE)?.value);
  // The layout sends a visitor without a session to sign in; this page may render before it does.
  if (!operator) notFound();
  const target = await inspectTargetOf(db, operator.bots, raw);
  if (target.kind === "not_found") notFound();
  if (target.kind === "turn") redirect(`/turns/${target.turnId}`);
  // The answer is stored as it is sent, its turn when the model call ends: a link followed
  // at once can arrive between the two. A message this fresh is waited for, not declared turnless.
  if (target.kind === "fresh") {
    return (
      <>
        <h1>Prompt inspector</h1>
        <p className="panel muted" role="status">
          Message #{target.messageId} is new: its agent turn may still be being recorded. This page retries for a few seconds.
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
        {target.messageId !== null && <Link href={`/messages/${target.messageId}`}>Open its thread</Link>}
      </p>
    </>
  );
}
