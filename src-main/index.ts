import { join } from 'node:path';
import { app, dialog, type BrowserWindow, type Tray } from 'electron';
import { startApp } from './app.ts';
import { readConfig } from './base/config.ts';
import type { RunningApp } from './app-types.ts';
import { bringToFront, createMainWindow } from './desktop/mainWindow.ts';
import { createTray } from './desktop/tray.ts';

const defaultPort = 8787;

// Every folder and file the app creates is its user's only (docs/api.md, "Data folder").
process.umask(0o077);

// A second launch focuses the first window instead of starting a second engine on the same data.
if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  let running: RunningApp | undefined;
  let mainWindow: BrowserWindow | undefined;
  let tray: Tray | undefined;
  let quitting = false;
  let closing = false;

  const showWindow = (): void => {
    if (running === undefined) return;
    if (mainWindow === undefined) {
      mainWindow = createMainWindow({
        consoleUrl: `${running.url}/`,
        apiBaseUrl: running.url,
        consoleToken: running.consoleToken,
      });
      // Closing the window hides it: jobs, profile logins and webhooks keep running in the tray.
      mainWindow.on('close', (event) => {
        if (quitting) return;
        event.preventDefault();
        mainWindow?.hide();
      });
      mainWindow.on('closed', () => (mainWindow = undefined));
      return;
    }
    if (mainWindow.isMinimized()) mainWindow.restore();
    mainWindow.show();
    mainWindow.focus();
  };

  app.on('second-instance', showWindow);
  app.on('activate', showWindow);

  // Without this handler Electron quits when the last window closes; Portico stays in the tray.
  app.on('window-all-closed', () => undefined);

  // Hold the quit until the engine has finished its work in flight and closed the database — also
  // when Quit comes while the engine is still starting (then it starts, and closes at once).
  let starting: Promise<RunningApp | undefined> | undefined;
  app.on('before-quit', (event) => {
    quitting = true;
    if (closing || starting === undefined) return;
    event.preventDefault();
    closing = true;
    void starting
      .then((engine) => engine?.close())
      .catch((error: unknown) => console.error(error))
      .finally(() => {
        tray?.destroy();
        app.quit();
      });
  });

  // A stop signal (terminal, supervisor, process-group kill) quits like the tray's Quit: the engine closes
  // first. Only the first: a second app.quit() while closing would skip the engine's close.
  let signalled = false;
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      if (signalled) return;
      signalled = true;
      app.quit();
    });
  }

  const start = async (): Promise<void> => {
    await app.whenReady();
    const config = readConfig(process.env);
    // The desktop app's default folder is Electron's userData, not the headless host's platform default.
    const dataDir = config.dataDir ?? app.getPath('userData');
    // out/main/index.js → out/renderer, built by the same `electron-vite build`.
    const rendererDir = join(import.meta.dirname, '../renderer');
    // Packaged builds ship resources/ beside the app (electron-builder extraResources); dev runs use the repo's.
    const resourcesDir = app.isPackaged
      ? join(process.resourcesPath, 'resources')
      : join(import.meta.dirname, '../../resources');
    // After the system browser came back to /oauth/callback, the user returns to Portico: bring its window to the front.
    const onAccountConnected = (): void => {
      if (mainWindow) bringToFront(mainWindow);
      else showWindow();
    };
    // No terminal here: the log goes to a rotating file in the data folder, shown in the console (Settings).
    const options = { config, dataDir, rendererDir, announceConsole: false, onAccountConnected, logFile: true };
    starting = startApp({ ...options, port: defaultPort }).catch((error: unknown) => {
      // A headless `npm run serve` may already hold the default port; any free port will do here.
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
      return startApp({ ...options, port: 0 });
    });
    running = await starting;
    if (quitting) return;
    tray = createTray(resourcesDir, { open: showWindow, quit: () => app.quit() });
    showWindow();
  };

  start().catch((error: unknown) => {
    // A desktop user sees no terminal: say it in a dialog before leaving.
    console.error(error);
    dialog.showErrorBox('Portico could not start', error instanceof Error ? error.message : String(error));
    app.exit(1);
  });
}
