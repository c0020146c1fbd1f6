import { z } from "zod";
import { labelCreateBody, labelPatchBody } from "../inbox/labels";
import { okResponse } from "./conversations/schema";
import { defineOperations } from "./operation";

export const labelView = z.strictObject({
  id: z.number().int(),
  /** Unique ignoring case; PATCH /conversations/{id} `labels` and GET /conversations `?label=` name it. */
  name: z.string(),
  /** #rrggbb. */
  color: z.string(),
});
export const labelListResponse = z.strictObject({ labels: z.array(labelView) });
export const labelResponse = z.strictObject({ label: labelView });
export { labelCreateBody, labelPatchBody };

export const operations = defineOperations([
  {
    method: "get",
    path: "/labels",
    summary: "Every label, by name",
    response: { status: 200, schema: labelListResponse },
  },
  {
    method: "post",
    path: "/labels",
    summary: "Admins: define a label { name (1–40 characters), color? (#rrggbb) }",
    body: labelCreateBody,
    response: { status: 201, schema: labelResponse },
    errors: { 409: "A label of that name exists (names are unique ignoring case)" },
  },
  {
    method: "patch",
    path: "/labels/{id}",
    summary: "Admins: rename a label or change its color (conversations carrying it show the new name)",
    body: labelPatchBody,
    response: { status: 200, schema: labelResponse },
    errors: { 409: "A label of that name exists (names are unique ignoring case)" },
  },
  {
    method: "delete",
    path: "/labels/{id}",
    summary: "Admins: delete a label; it leaves every conversation that carried it",
    response: { status: 200, schema: okResponse },
  },
]);
