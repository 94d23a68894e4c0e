#!/usr/bin/env node
// Builds only the console (out/renderer) from the renderer section of electron.vite.config.ts,
// so the headless host never needs the Electron bundles. Needs Node >= 22.18 (it imports a .ts file).
import { build } from 'vite';
import config from '../electron.vite.config.ts';

if (config.renderer === undefined) throw new Error('electron.vite.config.ts has no renderer section');
await build({ ...config.renderer, configFile: false, base: './' });
