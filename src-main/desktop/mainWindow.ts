import { join } from 'node:path';
import { app, BrowserWindow, shell } from 'electron';
import { bridgeArguments } from '../../src-preload/bridge.ts';

export interface MainWindowOptions {
  /** The served console, e.g. http://127.0.0.1:8787/ */
  consoleUrl: string;
  apiBaseUrl: string;
  consoleToken: string;
}

/**
 * Brings the console window back in front of the system browser, e.g. after `/oauth/callback`
 * connected an account there. On macOS a window's focus() does not activate an inactive app, so
 * the app is activated first (the one place Portico steals focus: the user just asked for it).
 */
export function bringToFront(window: BrowserWindow): void {
  if (window.isMinimized()) window.restore();
  window.show();
  if (process.platform === 'darwin') app.focus({ steal: true });
  window.focus();
}

/** Opens the console window; links to other origins open in the user's browser. */
export function createMainWindow(options: MainWindowOptions): BrowserWindow {
  const window = new BrowserWindow({
    width: 1280,
    height: 860,
    title: 'Portico',
    show: false,
    webPreferences: {
      preload: join(import.meta.dirname, '../preload/index.cjs'),
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      additionalArguments: bridgeArguments({ apiBaseUrl: options.apiBaseUrl, consoleToken: options.consoleToken }),
    },
  });
  const consoleOrigin = new URL(options.consoleUrl).origin;
  window.webContents.setWindowOpenHandler(({ url }) => {
    if (new URL(url).origin !== consoleOrigin) void shell.openExternal(url);
    return { action: 'deny' };
  });
  window.once('ready-to-show', () => window.show());
  void window.loadURL(options.consoleUrl);
  return window;
}
