import type { IncomingMessage, ServerResponse } from "node:http";
export declare function closeIfBodyStalled(req: IncomingMessage, res: ServerResponse): void;
