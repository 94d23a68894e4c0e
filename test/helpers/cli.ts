import { runCli } from '../../src-main/cli/main.ts';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON on success, stderr parsed on failure. */
  json: Record<string, unknown>;
}

/** Runs an admin command in-process against a data dir, capturing its output. */
export async function cli(dataDir: string, args: string[], stdin = ''): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(['--data-dir', dataDir, ...args], {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    readStdin: async () => stdin,
    env: {},
  });
  const text = code === 0 ? stdout : stderr;
  return { code, stdout, stderr, json: JSON.parse(text.split('\n')[0] ?? '{}') as Record<string, unknown> };
}
