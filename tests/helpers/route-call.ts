import { resolve } from "node:path";

type Route = Record<string, (r: Request, c: { params: Promise<unknown> }) => Promise<Response>>;

/** An /api/v1 call as a script makes it (the API token), through the route handler in `file`; the body parsed. */
export async function callRoute(
  token: string,
  file: string,
  method: string,
  url: string,
  params: Record<string, string> = {},
  body?: unknown,
) {
  const handler = ((await import(resolve(file))) as Route)[method];
  const response = await handler(
    new Request(`http://localhost${url}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    }),
    { params: Promise.resolve(params) },
  );
  return { status: response.status, body: (await response.json()) as any };
}
