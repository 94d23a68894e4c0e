/** A numbered schema change, applied once, in order, at start-up. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}
