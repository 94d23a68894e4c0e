/** Where the console keeps what the user typed, so a reload does not ask again. */
const storageKey = { apiKey: 'portico.apiKey', orgId: 'portico.orgId' } as const;

export interface ConsoleSettings {
  apiKey: string;
  orgId: string;
}

/** `#key=…&org=…` in the URL (what the server prints at first start) wins over stored values. */
export function loadSettings(): ConsoleSettings {
  const hash = new URLSearchParams(window.location.hash.replace(/^#/, ''));
  const settings = {
    apiKey: hash.get('key') ?? localStorage.getItem(storageKey.apiKey) ?? '',
    orgId: hash.get('org') ?? localStorage.getItem(storageKey.orgId) ?? 'default',
  };
  if (hash.has('key')) {
    saveSettings(settings);
    // Keep the key out of the address bar and history once stored.
    history.replaceState(null, '', window.location.pathname + window.location.search);
  }
  return settings;
}

export function saveSettings(settings: ConsoleSettings): void {
  localStorage.setItem(storageKey.apiKey, settings.apiKey);
  localStorage.setItem(storageKey.orgId, settings.orgId);
}
