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

/** The arguments the main process hands the window, in the form `parseBridgeArguments` reads back. */
export function bridgeArguments(bridge: PorticoBridge): string[] {
  return [`${bridgeArgument.apiBaseUrl}${bridge.apiBaseUrl}`, `${bridgeArgument.consoleToken}${bridge.consoleToken}`];
}

function readArgument(argv: readonly string[], prefix: string): string {
  const found = argv.find((argument) => argument.startsWith(prefix));
  return found === undefined ? '' : found.slice(prefix.length);
}

/**
 * The bridge from the renderer process's argv: exactly the API base URL and the console token
 * (empty when missing), frozen — nothing else of the main process reaches the page.
 */
export function parseBridgeArguments(argv: readonly string[]): PorticoBridge {
  return Object.freeze({
    apiBaseUrl: readArgument(argv, bridgeArgument.apiBaseUrl),
    consoleToken: readArgument(argv, bridgeArgument.consoleToken),
  });
}
