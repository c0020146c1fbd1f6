import type { IncomingMessage, ServerResponse } from "node:http";
export declare function closeIfBodyUnread(req: IncomingMessage, res: ServerResponse): void;
