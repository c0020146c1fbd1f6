import { SettingsForm } from "./settings-form";

export default function SettingsPage() {
  return <SettingsForm />;
}
