import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * A reporter that lists, at the end of a run, every test that needed a retry (CI retries an e2e test
 * once: vitest.config.ts) with the error of its failed attempt, so a flaky test is seen and fixed, not
 * hidden behind its second run.
 */
export default class RetriedTests implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const lines: string[] = [];
    for (const testModule of testModules) {
      for (const test of testModule.children.allTests()) {
        const retries = test.diagnostic()?.retryCount ?? 0;
        if (retries === 0) continue;
        const result = test.result();
        const first = result.errors?.[0];
        // Up to 25 lines of the first failure: an autofill test's message opens with a header and carries its log.
        const why = first
          ? `${first.name ?? 'Error'}: ${String(first.message).split('\n').slice(0, 25).join('\n    ')}`
          : 'no error kept';
        lines.push(
          `- ${relative(process.cwd(), testModule.moduleId)} > ${test.fullName}: ${result.state} after ${retries} retr${retries === 1 ? 'y' : 'ies'}; first failure: ${why}`,
        );
      }
    }
    if (lines.length === 0) return;
    process.stdout.write(
      `\nTests that failed once and were run again (flaky: fix them, see docs/decisions.md):\n${lines.join('\n')}\n`,
    );
  }
}
