export declare const projectRoot: string;
export type Provider = "sqlite" | "postgresql";
export declare function providerOf(url: string): Provider;
export declare function sqlitePath(url: string): string;
export declare function postgresTarget(url: string): { connectionString: string; schema: string };
export declare function migrationsDir(provider: Provider): string;
export declare function readMigrations(provider: Provider): { name: string; sql: string; checksum: string }[];
export declare function migrate(url: string, options?: { log?: (line: string) => void }): Promise<string[]>;
