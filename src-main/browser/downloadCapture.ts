import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';

import type { BrowserContext, Download, Page } from 'playwright-core';

import type { Logger } from '../base/logger.ts';

/** One file a job's page downloaded, saved into the job's downloads folder. */
export interface CapturedDownload {
  path: string;
  suggestedFilename: string;
  url: string;
}

/** Saves every download of a context's pages into one folder, under unique, safe file names. */
export class DownloadCapture {
  readonly #dir: string;
  readonly #logger: Logger;
  readonly #pending = new Set<Promise<void>>();
  readonly #reserved = new Set<string>();
  readonly #saved: CapturedDownload[] = [];
  #dirReady: Promise<unknown> | undefined;

  constructor(context: BrowserContext, dir: string, logger: Logger) {
    this.#dir = dir;
    this.#logger = logger;
    const watch = (page: Page): void => {
      page.on('download', (download) => this.#track(download));
    };
    context.pages().forEach(watch);
    context.on('page', watch);
  }

  /** The downloads saved so far, in completion order. */
  get saved(): readonly CapturedDownload[] {
    return this.#saved;
  }

  /** Waits for downloads in flight (up to `timeoutMs`) so closing the context does not cut them off. */
  async settle(timeoutMs: number): Promise<void> {
    if (this.#pending.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    await Promise.race([Promise.allSettled([...this.#pending]), timeout]);
    clearTimeout(timer);
  }

  #track(download: Download): void {
    const saving = this.#save(download).finally(() => this.#pending.delete(saving));
    this.#pending.add(saving);
  }

  async #save(download: Download): Promise<void> {
    const suggested = download.suggestedFilename();
    const target = this.#reserve(safeFileName(suggested));
    try {
      this.#dirReady ??= mkdir(this.#dir, { recursive: true });
      await this.#dirReady;
      await download.saveAs(target);
      this.#saved.push({ path: target, suggestedFilename: suggested, url: download.url() });
    } catch (error) {
      this.#logger.warn('download could not be saved', { url: download.url(), error: String(error) });
    }
  }

  // Names are reserved synchronously because two downloads of "report.pdf" can finish together.
  #reserve(name: string): string {
    const ext = path.extname(name);
    const stem = name.slice(0, name.length - ext.length);
    for (let n = 0; ; n += 1) {
      const candidate = n === 0 ? name : `${stem} (${n})${ext}`;
      const full = path.join(this.#dir, candidate);
      if (!this.#reserved.has(candidate) && !existsSync(full)) {
        this.#reserved.add(candidate);
        return full;
      }
    }
  }
}

/** A file name safe on every platform: no folders, no reserved characters, never empty. */
export function safeFileName(name: string): string {
  const cleaned = path
    .basename(name.replace(/\\/g, '/'))
    .replace(/[<>:"|?*\u0000-\u001f]/g, '_')
    .trim();
  return cleaned === '' || cleaned === '.' || cleaned === '..' ? 'download' : cleaned;
}
