export declare function isPageWrite(method: string | undefined, url?: string): boolean;
