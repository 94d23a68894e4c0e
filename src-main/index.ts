import { join } from 'node:path';
import { app, BrowserWindow } from 'electron';
import { startApp } from './app.ts';
import type { RunningApp } from './app-types.ts';
import { createMainWindow } from './desktop/mainWindow.ts';

const defaultPort = 8787;

// A second launch focuses the first window instead of starting a second engine on the same data.
if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  let running: RunningApp | undefined;
  let mainWindow: BrowserWindow | undefined;
  let closing = false;

  const openWindow = (server: RunningApp): void => {
    mainWindow = createMainWindow({ consoleUrl: `${server.url}/`, apiBaseUrl: server.url, consoleToken: '' });
    mainWindow.on('closed', () => (mainWindow = undefined));
  };

  app.on('second-instance', () => {
    if (mainWindow === undefined) return;
    if (mainWindow.isMinimized()) mainWindow.restore();
    mainWindow.focus();
  });

  app.on('activate', () => {
    if (running !== undefined && BrowserWindow.getAllWindows().length === 0) openWindow(running);
  });

  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });

  // Hold the quit until the engine has finished its work in flight and closed the database.
  app.on('before-quit', (event) => {
    if (closing || running === undefined) return;
    event.preventDefault();
    closing = true;
    void running.close().finally(() => app.quit());
  });

  const start = async (): Promise<void> => {
    await app.whenReady();
    const dataDir = process.env['PORTICO_DATA_DIR'] || app.getPath('userData');
    // out/main/index.js → out/renderer, built by the same `electron-vite build`.
    const rendererDir = join(import.meta.dirname, '../renderer');
    try {
      running = await startApp({ dataDir, rendererDir, port: defaultPort });
    } catch (error) {
      // A headless `npm run serve` may already hold the default port; any free port will do here.
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
      running = await startApp({ dataDir, rendererDir, port: 0 });
    }
    openWindow(running);
  };

  start().catch((error: unknown) => {
    console.error(error);
    app.exit(1);
  });
}
