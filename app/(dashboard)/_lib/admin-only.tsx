/** What an agent sees on a page only admins use (the API refuses them too). */
export function AdminOnly({ title, what }: { title: string; what: string }) {
  return (
    <>
      <h1>{title}</h1>
      <p className="panel" role="alert">
        Only an admin can {what}. You are signed in as an agent: conversations are yours to handle; ask an admin for anything else.
      </p>
    </>
  );
}
