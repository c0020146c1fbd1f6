/**
 * Import boundaries, checked by `npm run check:imports` (part of `npm run test:unit`):
 * lib/db stands on nothing above it, route handlers reach it only through lib/api
 * operations, lib/ stays free of Next.js, React
 * and the app, the dashboard's client code takes only types from lib/, and lib/
 * has no import cycle. Type-only imports count too: a
 * boundary is about what a reader must understand, not only what ships.
 * That no two lib/ folders import each other is checked by scripts/check-folder-cycles.mjs
 * (dependency-cruiser's folder scope reports cycles of any length, not pairs).
 */
module.exports = {
  forbidden: [
    {
      name: "db-stands-on-nothing-above",
      comment:
        "lib/db is reads and writes only: policy, context assembly, metrics, events and platforms live above it and call it, " +
        "never the reverse. What lib/db stores is declared in lib/db (the other layers' types fit it); what it reports " +
        "(statement counts and times) goes to an observer handed to openDb. It may take lib/errors.ts, lib/log.ts and " +
        "lib/record-id.ts. Pending (issue 49, the envelope lifecycle): lib/db/claim.ts reads the work kinds' SQL from " +
        "lib/envelope/work-kinds.ts, a table with no imports; the claim will take it from the worker.",
      severity: "error",
      from: { path: "^lib/db/" },
      to: { path: "^lib/", pathNot: "^lib/(db/|errors\\.ts$|log\\.ts$|record-id\\.ts$|envelope/work-kinds\\.ts$)" },
    },
    {
      name: "lib-free-of-next-react-app",
      comment: "lib/ is plain TypeScript the server, scripts and tests share: no Next.js, no React, nothing from app/.",
      severity: "error",
      from: { path: "^lib/" },
      to: {
        path: "^app/|(^|/)node_modules/(next|react|react-dom)/",
      },
    },
    {
      name: "lib-free-of-next-react-app-unresolved",
      comment: "Same rule for module names that did not resolve to a file (e.g. a type-only import of next/server).",
      severity: "error",
      from: { path: "^lib/" },
      to: { couldNotResolve: true, path: "^(next|react|react-dom)(/|$)" },
    },
    {
      name: "dashboard-client-takes-types-only",
      comment:
        "The dashboard's client modules take only types from lib/ (import type): server code must not reach the browser bundle. " +
        "Server components (layout.tsx, page.tsx) may import lib/. The exceptions are the envelope send schema, " +
        "pure zod with no server code, which the compose form runs in the browser so it says exactly what the API says, " +
        "and the text limits (lib/channels/text-limit.ts, constants and a sentence, no imports), for the same reason, " +
        "and a message's one-line preview (lib/db/message-preview.ts, one pure function beside the list query that uses it), so a quoted file reads as the list shows it.",
      severity: "error",
      from: { path: "^app/\\(dashboard\\)/", pathNot: "(^|/)(layout|page)\\.tsx$" },
      to: {
        path: "^lib/",
        pathNot: "^lib/(envelope/send-schema|channels/text-limit|db/message-preview)\\.ts$",
        dependencyTypesNot: ["type-only"],
      },
    },
    {
      name: "routes-through-lib-api",
      comment:
        "A route handler parses, lets its wrapper authorize, calls a lib/api operation and responds: it reads and writes " +
        "nothing itself, so no app/**/route.ts imports lib/db (type-only imports too). Kicking the worker after a write " +
        "is the operation's (lib/api/*/…: it takes the worker as `WorkerKick`), never the route's: not an import, so " +
        "tests/unit/route-handlers.test.ts reads the routes for it.",
      severity: "error",
      from: { path: "^app/.*/route\\.ts$" },
      to: { path: "^lib/db/" },
    },
    {
      name: "pages-through-lib",
      comment:
        "A page or component reads through lib/api, lib/auth or lib/server, never lib/db itself: what it may see is " +
        "decided there. message-preview.ts is the one pure helper the data layer and the console's lists share.",
      severity: "error",
      from: { path: "^app/" },
      to: { path: "^lib/db/", pathNot: "^lib/db/message-preview\\.ts$" },
    },
    {
      name: "auth-below-api",
      comment:
        "lib/auth (who a caller is, roles, per-bot scope, accounts) stands below lib/api (the API's schemas and operations): " +
        "a schema of an auth concept lives in lib/auth and lib/api imports it, never the reverse.",
      severity: "error",
      from: { path: "^lib/auth/" },
      to: { path: "^lib/api/" },
    },
    {
      name: "http-below-server",
      comment:
        "lib/http is HTTP helpers that know no app (responses, bodies, cookies, uploads); lib/server assembles the app and " +
        "wraps routes with it (with-operator.ts, live-events.ts), so it imports lib/http, never the reverse.",
      severity: "error",
      from: { path: "^lib/http/" },
      to: { path: "^lib/server/" },
    },
    {
      name: "no-cycles-in-lib",
      comment: "An import cycle in lib/ means two modules are one concern, or one is in the wrong place.",
      severity: "error",
      from: { path: "^lib/" },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^lib/db/generated/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".tsx", ".mts", ".mjs", ".js", ".d.ts"],
    },
  },
};
