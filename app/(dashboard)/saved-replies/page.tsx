import { SavedReplies } from "./saved-replies";

export default function SavedRepliesPage() {
  return <SavedReplies />;
}
