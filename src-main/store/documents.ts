import { prepared, type Db } from './database.ts';
import { listPage } from './paging.ts';

export type BundleStatus = 'processing' | 'completed' | 'failed';

export interface BundleRow {
  id: string;
  org_id: string;
  status: BundleStatus;
  error: string | null;
  created_at: string;
  updated_at: string;
}

export interface DocumentFileRow {
  bundle_id: string;
  file_index: number;
  /** The sanitised name the client gave; the file itself is stored as `<file_index>` in the bundle's folder. */
  name: string;
  /** Sniffed from the bytes (the client's claim is only a hint). */
  content_type: string;
  size: number;
  pages: number | null;
  text_chars: number | null;
  error: string | null;
}

/** What reading one file gave, recorded when its bundle finishes. */
export interface FileOutcome {
  fileIndex: number;
  contentType: string;
  pages: number | null;
  textChars: number | null;
  error: string | null;
}

/** Document bundles and their files' metadata (local-service.md §7). */
export class DocumentRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  insert(
    bundle: { id: string; orgId: string; createdAt: string },
    files: readonly { name: string; contentType: string; size: number }[],
  ): void {
    this.#db.transaction(() => {
      prepared(
        this.#db,
        `INSERT INTO document_bundles (id, org_id, status, error, created_at, updated_at) VALUES (?, ?, 'processing', NULL, ?, ?)`,
      ).run(bundle.id, bundle.orgId, bundle.createdAt, bundle.createdAt);
      const insertFile = prepared(
        this.#db,
        `INSERT INTO document_files (bundle_id, file_index, name, content_type, size) VALUES (?, ?, ?, ?, ?)`,
      );
      for (const [index, file] of files.entries())
        insertFile.run(bundle.id, index, file.name, file.contentType, file.size);
    })();
  }

  /** The bundle when it belongs to `orgId`. */
  get(orgId: string, id: string): BundleRow | undefined {
    return prepared(this.#db, `SELECT * FROM document_bundles WHERE id = ? AND org_id = ?`).get(id, orgId) as
      | BundleRow
      | undefined;
  }

  /** One page of the org's bundles, newest first, and how many match in all. */
  list(
    orgId: string,
    filter: { status?: BundleStatus | undefined; limit: number; offset: number },
  ): { rows: BundleRow[]; total: number } {
    return listPage<BundleRow>(
      this.#db,
      'document_bundles',
      { org_id: orgId, status: filter.status },
      'created_at DESC, rowid DESC',
      filter.limit,
      filter.offset,
    );
  }

  /** Bytes the org's uploaded documents hold (its disk quota). */
  totalBytes(orgId: string): number {
    const row = prepared(
      this.#db,
      `SELECT SUM(f.size) AS total FROM document_files f JOIN document_bundles b ON b.id = f.bundle_id WHERE b.org_id = ?`,
    ).get(orgId) as { total: number | null } | undefined;
    return row?.total ?? 0;
  }

  exists(id: string): boolean {
    return prepared(this.#db, `SELECT 1 FROM document_bundles WHERE id = ?`).get(id) !== undefined;
  }

  files(bundleId: string): DocumentFileRow[] {
    return prepared(this.#db, `SELECT * FROM document_files WHERE bundle_id = ? ORDER BY file_index`).all(
      bundleId,
    ) as DocumentFileRow[];
  }

  /** Bundles a stopped service left mid-read, oldest first. */
  processing(): BundleRow[] {
    return prepared(
      this.#db,
      `SELECT * FROM document_bundles WHERE status = 'processing' ORDER BY created_at`,
    ).all() as BundleRow[];
  }

  /** Records the outcome of every file and the bundle's final status in one transaction. */
  finish(
    bundleId: string,
    status: Exclude<BundleStatus, 'processing'>,
    error: string | null,
    outcomes: readonly FileOutcome[],
    at: string,
  ): void {
    this.#db.transaction(() => {
      const update = prepared(
        this.#db,
        `UPDATE document_files SET content_type = ?, pages = ?, text_chars = ?, error = ? WHERE bundle_id = ? AND file_index = ?`,
      );
      for (const o of outcomes) update.run(o.contentType, o.pages, o.textChars, o.error, bundleId, o.fileIndex);
      prepared(
        this.#db,
        `UPDATE document_bundles SET status = ?, error = ?, updated_at = ? WHERE id = ? AND status = 'processing'`,
      ).run(status, error, at, bundleId);
    })();
  }

  delete(orgId: string, id: string): boolean {
    return prepared(this.#db, `DELETE FROM document_bundles WHERE id = ? AND org_id = ?`).run(id, orgId).changes > 0;
  }
}
