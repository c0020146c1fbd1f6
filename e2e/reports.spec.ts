import { readFile } from "node:fs/promises";
import { expect, test } from "./fixtures";

type Figures = { conversations: { opened: number; resolved: number } };

test("two simulated chats, one resolved: the Reports page counts them, keeps its filters in the address and downloads the CSV", async ({
  page,
  dashboard,
}) => {
  await dashboard.signIn();
  // Other specs share the run's database: count from what is there already.
  const before = (await (await page.request.get("/api/v1/reports")).json()) as Figures;
  const team = (await (await page.request.get("/api/v1/operators")).json()) as { operators: { id: number; name: string }[] };
  const adminId = team.operators.find((o) => o.name === "admin")!.id;
  const mine = (await (await page.request.get(`/api/v1/reports?operatorId=${adminId}`)).json()) as Figures;

  await dashboard.simulate("Where is my parcel?", { firstName: "Rita", userId: 7501 });
  await expect(page.getByTestId("sim-timeline")).toContainText("Echo: Where is my parcel?");
  await page.getByRole("link", { name: "Open in dashboard" }).click();
  const controls = page.getByTestId("inbox-controls");
  await controls.getByRole("button", { name: "Resolve" }).click();
  await expect(controls.getByTestId("inbox-status")).toHaveText("resolved");
  await dashboard.simulate("Do you ship abroad?", { firstName: "Sami", userId: 7502 });
  await expect(page.getByTestId("sim-timeline")).toContainText("Echo: Do you ship abroad?");

  await page.getByRole("link", { name: "Reports", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Reports" })).toBeVisible();
  await expect(page.getByTestId("report-opened")).toHaveText(String(before.conversations.opened + 2));
  await expect(page.getByTestId("report-resolved")).toHaveText(String(before.conversations.resolved + 1));
  await expect(page.getByTestId("report-first-bot")).not.toContainText("—");
  await expect(page.getByTestId("report-chart").locator("canvas")).toBeVisible();

  // One operator: the conversations they handled (here: the one they resolved), kept in the address.
  await page.getByLabel("Operator").selectOption({ label: "admin" });
  await expect(page).toHaveURL(new RegExp(`[?&]operatorId=${adminId}(&|$)`));
  await page.reload();
  await expect(page.getByLabel("Operator")).toHaveValue(String(adminId));
  await expect(page.getByTestId("report-resolved")).toHaveText(String(mine.conversations.resolved + 1));
  await expect(page.getByTestId("report-opened")).toHaveText(String(mine.conversations.opened + 1));
  await expect(page.getByTestId("report-resolution")).not.toHaveText("— / —");
  await dashboard.screenshot("reports");

  const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("report-csv").click()]);
  expect(download.suggestedFilename()).toMatch(/^switchboard-report-\d{4}-\d{2}-\d{2}-to-\d{4}-\d{2}-\d{2}\.csv$/);
  const lines = (await readFile((await download.path())!, "utf8")).trim().split("\r\n");
  expect(lines[0]).toMatch(/^day \(UTC\),opened,resolved,handoffs,/);
  expect(lines).toHaveLength(1 + 7 + 1);
  expect(lines.at(-1)).toMatch(new RegExp(`^total,${mine.conversations.opened + 1},${mine.conversations.resolved + 1},`));
});
