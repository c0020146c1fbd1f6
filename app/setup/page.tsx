import { redirect } from "next/navigation";
import { AuthForm } from "@/app/_components/auth-form";
import { setupPending } from "@/lib/auth/operators";
import { getApp } from "@/lib/server/wiring";

export const dynamic = "force-dynamic";

/** First run: no operator exists yet, so whoever opens the console creates one. */
export default async function SetupPage() {
  const { db } = await getApp();
  if (!(await setupPending(db))) redirect("/login");
  return (
    <div className="auth">
      <h1>Welcome to Switchboard</h1>
      <p className="muted">
        Create the first operator account. The setup code is printed in the server&apos;s log (the output of <code>npm start</code>) when it
        starts. Set ADMIN_PASSWORD to skip this step on servers.
      </p>
      <AuthForm endpoint="/api/auth/setup" submitLabel="Create account" then="/" askSetupCode />
    </div>
  );
}
