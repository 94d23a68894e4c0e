import type { Migration } from '../migration.ts';
import { migration0001 } from './0001_init.ts';

/** Every migration, in version order. Append new files here; never edit an applied one. */
export const migrations: readonly Migration[] = [migration0001];
