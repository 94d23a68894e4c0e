import { prepared, type Db } from './database.ts';

/** Small key/value facts about this data dir (its install id). */
export class MetaRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  get(key: string): string | undefined {
    return prepared<[string], { value: string }>(this.#db, 'SELECT value FROM meta WHERE key = ?').get(key)?.value;
  }

  /** The random id migration 0003 gave this data dir. */
  installId(): string {
    const id = this.get('install_id');
    if (!id) throw new Error('meta.install_id is missing');
    return id;
  }
}
