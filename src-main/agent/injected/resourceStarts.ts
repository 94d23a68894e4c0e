// Runs in the page: when it started its requests to `name` (ms since the epoch, by the page's clock: its time
// origin plus each Resource Timing entry's start); null while it keeps none (an entry is written once the
// answer's body is in). The submission watch asks it of a request that reached Portico late (submissionWatch.ts).
export default function resourceStarts(name: string): number[] | null {
  const entries = performance.getEntriesByName(name, 'resource');
  return entries.length ? entries.map((e) => performance.timeOrigin + e.startTime) : null;
}
