import { InvitationForm } from "./invitation-form";

export const dynamic = "force-dynamic";

/** Where an invitation link leads: the token rides in the fragment, so it never reaches a server log or a Referer. */
export default function InvitePage() {
  return (
    <div className="auth">
      <h1>Join Switchboard</h1>
      <InvitationForm />
    </div>
  );
}
