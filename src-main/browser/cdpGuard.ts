import { isAbsolute, relative, resolve } from 'node:path';

/**
 * What a CDP client of a session (a `cdp_url` holder) may ask of its browser: the web, and nothing of
 * the machine under it (docs/security.md). Every command of an untrusted channel passes here first;
 * a refusal is answered to the client as a CDP error and never reaches Chromium.
 */

/** Schemes a document or frame may have: the web, plus what pages make inside themselves. */
const DOCUMENT_SCHEMES = new Set(['http:', 'https:', 'data:', 'blob:']);
/** `about:` pages that are not Chromium's own (`about:version` is rewritten to chrome://version). */
const ABOUT_PAGES = new Set(['blank', 'srcdoc']);

/** Why `url` may not be loaded as a document by a client's command, or undefined when it may. */
export function forbiddenDocumentUrl(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'not an absolute URL';
  }
  if (DOCUMENT_SCHEMES.has(parsed.protocol)) return undefined;
  if (parsed.protocol === 'about:' && ABOUT_PAGES.has(parsed.pathname)) return undefined;
  return `${parsed.protocol} URLs are not allowed (only http, https, data, blob and about:blank)`;
}

/** Target types a client may attach to: Chromium's own UI (`browser_ui`, chrome:// pages) is not the web. */
export function forbiddenTarget(info: { type: string; url: string }): string | undefined {
  if (info.type === 'browser_ui' || info.type === 'webview') return `a ${info.type} target is Chromium's own`;
  if (info.url === '' || info.type === 'browser') return undefined;
  return forbiddenDocumentUrl(info.url) === undefined ? undefined : `its URL is not a web page`;
}

/** Methods no client may send, with the reason it is told. */
const REFUSED_METHODS = new Map<string, string>([
  ['Target.exposeDevToolsProtocol', "it would hand a page the browser's DevTools protocol"],
  ['Target.sendMessageToTarget', 'use flat sessions (sessionId on each message)'],
  ['Target.setRemoteLocations', 'remote targets are not available'],
  ['Network.loadNetworkResource', 'it loads any URL, file: included, in the browser process'],
  ['Page.handleFileChooser', 'it sends local files to the page'],
  ['Tethering.bind', 'the browser may not open ports'],
  ['Tethering.unbind', 'the browser may not open ports'],
  ['Extensions.loadUnpacked', 'extensions are not available'],
  ['Extensions.uninstall', 'extensions are not available'],
  ['Browser.executeBrowserCommand', 'browser commands are not available'],
]);
const REFUSED_DOMAINS = new Map<string, string>([['PWA', 'web app installs are not available']]);

/** What the guard knows of the session: where its downloads go, and how to look a target up. */
export interface CdpGuardContext {
  /** The only folder a client's downloads (and uploads) may use. */
  downloadsDir: string;
  /** A target's type and URL, or undefined when Chromium does not know it. */
  targetInfo(targetId: string): Promise<{ type: string; url: string } | undefined>;
}

/**
 * Portico's own (trusted) channel to a session browser passes unguarded, except for where downloads go:
 * its Playwright connection asks for `allowAndName` into a throwaway folder of its own (outside the data
 * folder, GUID names, removed when the connection closes), and a download behaviour applies to the whole
 * browser context, so every client's unconfigured downloads went there. Portico never takes a session's
 * downloads, so its channel leaves them to Chromium's default: the session's downloads folder, set in the
 * profile's preferences at launch, under the file's own name.
 */
export function trustedCdpParams(method: string, params: Record<string, unknown>): Record<string, unknown> {
  if (method !== 'Browser.setDownloadBehavior' && method !== 'Page.setDownloadBehavior') return params;
  if (params.behavior !== 'allow' && params.behavior !== 'allowAndName') return params;
  const { downloadPath: _ignored, ...rest } = params;
  return { ...rest, behavior: 'default' };
}

export type CdpVerdict = { params: Record<string, unknown> } | { refused: string };

function inside(dir: string, path: unknown): boolean {
  if (typeof path !== 'string' || !isAbsolute(path)) return false;
  const rel = relative(resolve(dir), resolve(path));
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

function checkUrl(params: Record<string, unknown>, key: string, optional: boolean): string | undefined {
  const value = params[key];
  if (value === undefined || (optional && value === '')) return optional ? undefined : `${key} is required`;
  if (typeof value !== 'string') return `${key} must be a string`;
  const why = forbiddenDocumentUrl(value);
  return why && `${key}: ${why}`;
}

/** The verdict on one command of a client: forwarded (possibly with adjusted params) or refused with a reason. */
export async function guardCdpCommand(
  method: string,
  params: Record<string, unknown>,
  context: CdpGuardContext,
): Promise<CdpVerdict> {
  const refusedReason = REFUSED_METHODS.get(method) ?? REFUSED_DOMAINS.get(method.split('.')[0] ?? '');
  if (refusedReason) return { refused: refusedReason };
  const refuse = (why: string | undefined): CdpVerdict => (why === undefined ? { params } : { refused: why });
  switch (method) {
    case 'Page.navigate':
      return refuse(checkUrl(params, 'url', false));
    case 'Target.createTarget':
      return refuse(checkUrl(params, 'url', true));
    case 'Fetch.continueRequest':
    case 'Network.continueInterceptedRequest': {
      const url = params.url;
      if (url === undefined) return { params };
      if (typeof url !== 'string' || !/^https?:$/.test(safeProtocol(url)))
        return { refused: 'url: a request may only be rewritten to http or https' };
      return { params };
    }
    case 'Target.attachToTarget': {
      if (params.flatten !== true) return { refused: 'flatten must be true' };
      const targetId = params.targetId;
      if (typeof targetId !== 'string') return { refused: 'targetId is required' };
      const info = await context.targetInfo(targetId);
      if (!info) return { params };
      return refuse(forbiddenTarget(info));
    }
    case 'Target.setAutoAttach':
    case 'Target.autoAttachRelated':
      return refuse(params.flatten === false ? 'flatten must be true' : undefined);
    case 'Browser.setDownloadBehavior':
    case 'Page.setDownloadBehavior': {
      // Downloads of a session land in its own folder whatever path the client names (Playwright and
      // Puppeteer name a folder of their own machine): allowed, but always there.
      const behavior = params.behavior;
      if (behavior === 'allow' || behavior === 'allowAndName')
        return { params: { ...params, downloadPath: context.downloadsDir } };
      return { params };
    }
    case 'DOM.setFileInputFiles': {
      const files = params.files;
      if (!Array.isArray(files) || files.some((file) => !inside(context.downloadsDir, file))) {
        return {
          refused:
            'files: only files the session downloaded can be uploaded (send file contents from your side instead)',
        };
      }
      return { params };
    }
    case 'Input.dispatchDragEvent': {
      const data = params.data;
      const files = data !== null && typeof data === 'object' ? (data as { files?: unknown }).files : undefined;
      if (Array.isArray(files) && files.some((file) => !inside(context.downloadsDir, file)))
        return { refused: 'data.files: local files cannot be dropped on a page' };
      return { params };
    }
    default:
      return { params };
  }
}

function safeProtocol(url: string): string {
  try {
    return new URL(url).protocol;
  } catch {
    return '';
  }
}
