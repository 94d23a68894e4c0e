// Types of scripts/build-injected.mjs, for the tests that import it.
export declare const outputPath: string;
export declare const entries: Record<string, string>;
export declare function isStale(): boolean;
export declare function bundleScript(file: string, globalName: string, exports?: 'default' | 'named'): Promise<string>;
export declare function generate(): Promise<string>;
export declare function buildInjected(): Promise<boolean>;
export declare const styles: Record<string, string>;
