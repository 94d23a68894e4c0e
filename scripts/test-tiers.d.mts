/** The marker line that puts a test file in the `unit` tier. */
export declare const UNIT_MARKER: string;
/** The unit tier's files, relative to `root` with forward slashes, sorted. */
export declare function unitTestFiles(root: string): string[];
