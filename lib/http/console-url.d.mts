export declare function consoleUrl(hostname: string | undefined, port: string): string;
export declare function readyLines(url: string, setupCode: string | null | undefined): string[];
export declare function buildNotice(firstBuild: boolean): string;
export declare function buildProgress(elapsedMs: number): string;
