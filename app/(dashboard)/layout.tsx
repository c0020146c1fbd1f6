import { cookies } from "next/headers";
import { operatorOfSession, SESSION_COOKIE } from "@/lib/auth/operators";
import { redirect } from "next/navigation";
import { countOperators } from "@/lib/db/operators";
import { getApp } from "@/lib/server/wiring";
import { Nav } from "./nav";
import { Providers } from "./providers";

export const dynamic = "force-dynamic";

/** Every dashboard page requires a live operator session (a disabled or removed operator has none). */
export default async function DashboardLayout({ children }: { children: React.ReactNode }) {
  const operator = await operatorOfSession((await getApp()).db, (await cookies()).get(SESSION_COOKIE)?.value);
  if (!operator) redirect((await countOperators((await getApp()).db)) === 0 ? "/setup" : "/login");
  return (
    <Providers>
      <div className="shell">
        <Nav operator={operator.name} role={operator.role} />
        <main>{children}</main>
      </div>
    </Providers>
  );
}
