import { EnvelopeList } from "./envelope-list";

export default function EnvelopesPage() {
  return <EnvelopeList />;
}
