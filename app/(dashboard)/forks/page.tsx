import { ForkList } from "./fork-list";

export default function ForksPage() {
  return <ForkList />;
}
