/** How the dashboard names the bot's membership of a chat when it cannot send there. */
export function membershipLabel(membership: string): string {
  return membership === "blocked" ? "bot blocked" : membership === "removed" ? "bot removed" : "bot left";
}
