import { LabelsConsole } from "./labels-console";

export default function LabelsPage() {
  return <LabelsConsole />;
}
