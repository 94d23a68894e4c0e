/** What the console sees as `window.portico` inside the desktop app (absent in a plain browser). */
export interface PorticoBridge {
  readonly apiBaseUrl: string;
  readonly consoleToken: string;
}

/** Argument prefixes the main process passes through `webPreferences.additionalArguments`. */
export const bridgeArgument = {
  apiBaseUrl: '--portico-api-base-url=',
  consoleToken: '--portico-console-token=',
} as const;
