import { ConversationList } from "./conversations/conversation-list";

export default function HomePage() {
  return <ConversationList />;
}
