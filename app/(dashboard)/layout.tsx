import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { operatorOfSession, SESSION_COOKIE, setupPending, shownName } from "@/lib/auth/operators";
import { loginPathFor, REQUEST_PATH_HEADER } from "@/lib/http/return-path";
import { getApp } from "@/lib/server/wiring";
import { Nav } from "./nav";
import { Providers } from "./providers";

export const dynamic = "force-dynamic";

/** Every dashboard page requires a live operator session (a disabled or removed operator has none). */
export default async function DashboardLayout({ children }: { children: React.ReactNode }) {
  const { db } = await getApp();
  const operator = await operatorOfSession(db, (await cookies()).get(SESSION_COOKIE)?.value);
  // Signed in, the operator lands on the page they asked for.
  if (!operator) redirect((await setupPending(db)) ? "/setup" : loginPathFor((await headers()).get(REQUEST_PATH_HEADER)));
  return (
    <Providers>
      <div className="shell">
        <Nav operator={shownName(operator)} role={operator.role} />
        <main>{children}</main>
      </div>
    </Providers>
  );
}
