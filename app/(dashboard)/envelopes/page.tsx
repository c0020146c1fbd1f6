import { cookies } from "next/headers";
import { operatorOfSession, SESSION_COOKIE } from "@/lib/auth/operators";
import { getApp } from "@/lib/server/wiring";
import { EnvelopeList } from "./envelope-list";

export default async function EnvelopesPage() {
  // The layout has checked the session; the compose form sends as this operator.
  const operator = await operatorOfSession((await getApp()).db, (await cookies()).get(SESSION_COOKIE)?.value);
  return <EnvelopeList operator={operator?.name ?? ""} />;
}
