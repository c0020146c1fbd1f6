// Finds the Chromium that Playwright drives (never a downloaded browser):
// CHROMIUM_PATH, else Debian's /usr/bin/chromium. On a root Debian machine
// without it, installs Debian's package (set SWITCHBOARD_NO_BROWSER_INSTALL=1 to
// only report); anywhere else it says exactly what to install.
import { execSync } from "node:child_process";
import { existsSync } from "node:fs";

const candidates = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"].filter(Boolean);
const found = () => candidates.find((path) => existsSync(path));

if (!found()) {
  const canInstall = process.getuid?.() === 0 && existsSync("/usr/bin/apt-get") && process.env.SWITCHBOARD_NO_BROWSER_INSTALL !== "1";
  if (canInstall) {
    console.log("[e2e] Chromium not found; installing Debian's chromium package (apt-get)…");
    execSync("apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium", { stdio: "inherit" });
  }
}
const path = found();
if (!path) {
  console.error(
    "[e2e] No Chromium found. Install Debian's package (sudo apt-get install -y chromium) or set CHROMIUM_PATH to a Chromium binary.\n" +
      "      Playwright's own browser download is not used: these machines have no access to it.",
  );
  process.exit(1);
}
console.log(`[e2e] using ${path}`);
