import { Simulator } from "./simulator";

export default function SimulatorPage() {
  return <Simulator />;
}
