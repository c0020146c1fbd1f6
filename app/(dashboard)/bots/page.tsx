import { cookies } from "next/headers";
import { operatorOfSession, SESSION_COOKIE } from "@/lib/auth/operators";
import { getApp } from "@/lib/server/wiring";
import { AdminOnly } from "../_lib/admin-only";
import { BotsConsole } from "./bots-console";

export default async function BotsPage() {
  const me = await operatorOfSession((await getApp()).db, (await cookies()).get(SESSION_COOKIE)?.value);
  if (me?.role !== "admin") return <AdminOnly title="Bots" what="manage bots" />;
  return <BotsConsole />;
}
