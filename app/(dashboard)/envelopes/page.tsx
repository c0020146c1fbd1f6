import { cookies } from "next/headers";
import { SESSION_COOKIE } from "@/lib/auth/operators";
import { findLiveSession } from "@/lib/db/operators";
import { getApp } from "@/lib/server/wiring";
import { EnvelopeList } from "./envelope-list";

export default async function EnvelopesPage() {
  // The layout has checked the session; the compose form sends as this operator.
  const { db } = await getApp();
  const token = (await cookies()).get(SESSION_COOKIE)?.value;
  const session = token ? await findLiveSession(db, token, new Date()) : null;
  return <EnvelopeList operator={session?.operator.name ?? ""} />;
}
