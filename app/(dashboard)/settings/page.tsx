import { cookies } from "next/headers";
import { operatorOfSession, SESSION_COOKIE } from "@/lib/auth/operators";
import { getApp } from "@/lib/server/wiring";
import { YourAccount } from "./account-security";
import { SettingsForm } from "./settings-form";

/** Admins see every setting; agents their own account only (the API refuses them settings changes too). */
export default async function SettingsPage() {
  if ((await operatorOfSession((await getApp()).db, (await cookies()).get(SESSION_COOKIE)?.value))?.role === "admin")
    return <SettingsForm />;
  return (
    <>
      <h1>Settings</h1>
      <YourAccount />
      <p className="muted">The bot's settings are changed by admins.</p>
    </>
  );
}
