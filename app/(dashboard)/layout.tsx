import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { SESSION_COOKIE } from "@/lib/auth/operators";
import { countOperators, findLiveSession } from "@/lib/db/operators";
import { getApp } from "@/lib/server/wiring";
import { Nav } from "./nav";
import { Providers } from "./providers";

export const dynamic = "force-dynamic";

/** Every dashboard page requires a live operator session. */
export default async function DashboardLayout({ children }: { children: React.ReactNode }) {
  const { db } = await getApp();
  const token = (await cookies()).get(SESSION_COOKIE)?.value;
  const session = token ? await findLiveSession(db, token, new Date()) : null;
  if (!session) redirect((await countOperators(db)) === 0 ? "/setup" : "/login");
  return (
    <Providers>
      <div className="shell">
        <Nav operator={session.operator.name} />
        <main>{children}</main>
      </div>
    </Providers>
  );
}
