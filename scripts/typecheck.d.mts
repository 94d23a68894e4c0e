// Types of scripts/typecheck.mjs, for the tests that import it.
export interface TscError {
  file: string;
  text: string;
}
export declare const inlinePageCode: string[];
export declare const projects: string[];
export declare function runTsc(project: string, extraArgs?: string[]): Promise<{ code: number; output: string }>;
export declare function parseErrors(output: string): TscError[];
export declare function judgeNodeProgram(errors: TscError[], listed?: string[]): string[];
