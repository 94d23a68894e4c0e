import { mkdir } from 'node:fs/promises';

/** The variables os.tmpdir() reads (TMPDIR on POSIX, TMP/TEMP on Windows). */
const TEMP_VARIABLES = ['TMPDIR', 'TMP', 'TEMP'] as const;

let open = 0;
let saved: Partial<Record<(typeof TEMP_VARIABLES)[number], string>> = {};

function setTempVariables(values: Partial<Record<(typeof TEMP_VARIABLES)[number], string>> | string): void {
  for (const name of TEMP_VARIABLES) {
    const value = typeof values === 'string' ? values : values[name];
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
}

/**
 * Runs a Playwright launch with its throwaway folders (the browser's profile and artifacts, which
 * Playwright makes in os.tmpdir() and only removes on a clean close) inside `dir`, so what a kill -9
 * leaves is in the data folder's temp folder, cleared at the next start. Chromium itself gets the
 * environment as it was (`chromiumEnv`): its singleton socket lives in the system temp folder, whose
 * short path a Unix socket needs. Launches that overlap share the first one's folder.
 */
export async function inPlaywrightTemp<T>(
  dir: string,
  launch: (chromiumEnv: Record<string, string>) => Promise<T>,
): Promise<T> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  if (open === 0) {
    saved = {};
    for (const name of TEMP_VARIABLES) {
      const value = process.env[name];
      if (value !== undefined) saved[name] = value;
    }
  }
  const chromiumEnv: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) chromiumEnv[name] = value;
  for (const name of TEMP_VARIABLES) delete chromiumEnv[name];
  Object.assign(chromiumEnv, saved);
  open += 1;
  if (open === 1) setTempVariables(dir);
  try {
    return await launch(chromiumEnv);
  } finally {
    open -= 1;
    if (open === 0) setTempVariables(saved);
  }
}
