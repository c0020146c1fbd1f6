import { connection } from "next/server";
import Link from "next/link";

/**
 * The 404 page. Rendered per request, like every page: a page prerendered at
 * build time has no nonce on its scripts, and the CSP (proxy.ts) blocks them.
 */
export default async function NotFound() {
  await connection();
  return (
    <main style={{ padding: 32 }}>
      <h1>Page not found</h1>
      <p>
        <Link href="/">Back to conversations</Link>
      </p>
    </main>
  );
}
