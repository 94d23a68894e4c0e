import { linearRegExp } from '../base/linearRegExp.ts';

/**
 * Whether `url` is one of a portal's `humanized_urls`. A pattern is a URL or URL prefix
 * ("https://shop.example/login"), optionally without scheme ("shop.example/login"), or a glob
 * matched against the whole URL, where `*` matches any run of characters ("https://*.shop.example/cart*").
 * Case-insensitive, because hosts are and a false positive only costs typing speed.
 */
export function matchesHumanizedUrl(url: string, patterns: readonly string[] | null | undefined): boolean {
  if (!patterns || patterns.length === 0) return false;
  const full = normalizeUrl(url);
  const schemeless = full.replace(/^[a-z][a-z0-9+.-]*:\/\//, '');
  return patterns.some((raw) => {
    const pattern = raw.trim().toLowerCase();
    if (pattern === '') return false;
    const subject = /^[a-z][a-z0-9+.-]*:\/\//.test(pattern) ? full : schemeless;
    return pattern.includes('*') ? globMatches(pattern, subject) : matchesPrefix(subject, pattern);
  });
}

function normalizeUrl(url: string): string {
  try {
    // URL() lowercases scheme and host and adds the "/" path, so "https://a.example" matches "https://a.example/".
    return new URL(url).href.toLowerCase();
  } catch {
    return url.trim().toLowerCase();
  }
}

// A prefix must end at a URL boundary, so "shop.example" does not match "shop.example.evil".
function matchesPrefix(subject: string, pattern: string): boolean {
  const trimmed = pattern.endsWith('/') ? pattern.slice(0, -1) : pattern;
  if (!subject.startsWith(trimmed)) return false;
  const next = subject.charAt(trimmed.length);
  return next === '' || '/?#:'.includes(next) || trimmed.endsWith('?') || trimmed.endsWith('=');
}

// On RE2 (linear time): as a RegExp, a glob such as `*a*a*a*a*b` backtracks for seconds on a long URL.
function globMatches(pattern: string, subject: string): boolean {
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  try {
    return linearRegExp(source, { anchored: true }).test(subject);
  } catch {
    return false;
  }
}
