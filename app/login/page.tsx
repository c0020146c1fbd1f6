import { redirect } from "next/navigation";
import { AuthForm } from "@/app/_components/auth-form";
import { setupPending } from "@/lib/auth/operators";
import { safeReturnPath } from "@/lib/http/return-path";
import { getApp } from "@/lib/server/wiring";

export const dynamic = "force-dynamic";

export default async function LoginPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { next } = await searchParams;
  const { db } = await getApp();
  if (await setupPending(db)) redirect("/setup");
  return (
    <div className="auth">
      <h1>Sign in to Switchboard</h1>
      <AuthForm endpoint="/api/auth/login" submitLabel="Sign in" then={safeReturnPath(typeof next === "string" ? next : null) ?? "/"} />
    </div>
  );
}
