import { contextBridge } from 'electron';
import { bridgeArgument, type PorticoBridge } from './bridge.ts';

function readArgument(prefix: string): string {
  const found = process.argv.find((argument) => argument.startsWith(prefix));
  return found === undefined ? '' : found.slice(prefix.length);
}

const bridge: PorticoBridge = Object.freeze({
  apiBaseUrl: readArgument(bridgeArgument.apiBaseUrl),
  consoleToken: readArgument(bridgeArgument.consoleToken),
});

contextBridge.exposeInMainWorld('portico', bridge);
