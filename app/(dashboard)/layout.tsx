import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { SESSION_COOKIE } from "@/lib/auth/operators";
import { countOperators, findLiveSession } from "@/lib/db/operators";
import { loginPathFor, REQUEST_PATH_HEADER } from "@/lib/http/return-path";
import { getApp } from "@/lib/server/wiring";
import { Nav } from "./nav";
import { Providers } from "./providers";

export const dynamic = "force-dynamic";

/** Every dashboard page requires a live operator session. */
export default async function DashboardLayout({ children }: { children: React.ReactNode }) {
  const { db } = await getApp();
  const token = (await cookies()).get(SESSION_COOKIE)?.value;
  const session = token ? await findLiveSession(db, token, new Date()) : null;
  // Signed in, the operator lands on the page they asked for.
  if (!session) redirect((await countOperators(db)) === 0 ? "/setup" : loginPathFor((await headers()).get(REQUEST_PATH_HEADER)));
  return (
    <Providers>
      <div className="shell">
        <Nav operator={session.operator.name} />
        <main>{children}</main>
      </div>
    </Providers>
  );
}
