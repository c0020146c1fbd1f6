import { cookies } from "next/headers";
import { operatorOfSession, SESSION_COOKIE } from "@/lib/auth/operators";
import { getApp } from "@/lib/server/wiring";
import { AdminOnly } from "../_lib/admin-only";
import { Simulator } from "./simulator";

export default async function SimulatorPage() {
  if ((await operatorOfSession((await getApp()).db, (await cookies()).get(SESSION_COOKIE)?.value))?.role !== "admin")
    return <AdminOnly title="Simulator" what="use the simulator" />;
  return <Simulator />;
}
