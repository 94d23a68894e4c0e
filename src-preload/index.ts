import { contextBridge } from 'electron';
import { parseBridgeArguments } from './bridge.ts';

// Kept to one line of Electron: the parsing lives in bridge.ts, where tests can reach it.
contextBridge.exposeInMainWorld('portico', parseBridgeArguments(process.argv));
