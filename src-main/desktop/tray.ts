import { join } from 'node:path';
import { Menu, Tray, nativeImage } from 'electron';

export interface TrayActions {
  open(): void;
  quit(): void;
}

/** The tray icon that keeps Portico reachable after its window closes: Open and Quit. */
export function createTray(resourcesDir: string, actions: TrayActions): Tray {
  const tray = new Tray(nativeImage.createFromPath(join(resourcesDir, 'trayIcon.png')));
  tray.setToolTip('Portico — jobs keep running');
  tray.setContextMenu(
    Menu.buildFromTemplate([
      { label: 'Open Portico', click: actions.open },
      { type: 'separator' },
      { label: 'Quit Portico', click: actions.quit },
    ]),
  );
  // Linux and Windows users expect a click on the icon to bring the window back.
  tray.on('click', actions.open);
  return tray;
}
