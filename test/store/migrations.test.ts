// tier: unit
import Database from 'better-sqlite3';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyMigrations, openDatabase } from '../../src-main/store/database.ts';
import { migrations } from '../../src-main/store/migrations/index.ts';

describe('store migrations', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-db-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('an empty file gets every table, WAL and foreign keys', () => {
    const db = openDatabase(join(dir, 'p.db'));
    const tables = db
      .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .all()
      .map((r) => r.name);
    expect(tables).toEqual(
      expect.arrayContaining([
        'orgs',
        'users',
        'workspaces',
        'memberships',
        'api_keys',
        'profiles',
        'skill_folders',
        'skills',
        'portals',
        'portal_skills',
        'autofill_mappings',
        'schema_migrations',
      ]),
    );
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    const versions = db
      .prepare<[], { version: number }>('SELECT version FROM schema_migrations ORDER BY version')
      .all()
      .map((r) => r.version);
    expect(versions).toEqual(migrations.map((m) => m.version));
    db.close();
  });

  it('reopening applies nothing twice and keeps the data', () => {
    const file = join(dir, 'p.db');
    const first = openDatabase(file);
    first.prepare("INSERT INTO orgs (id, name, created_at) VALUES ('o', 'O', 'now')").run();
    first.close();
    const second = openDatabase(file);
    expect(applyMigrations(second, migrations)).toEqual([]);
    expect(second.prepare('SELECT COUNT(*) AS n FROM orgs').get()).toEqual({ n: 1 });
    second.close();
  });

  it('pending migrations land together or not at all', () => {
    const file = join(dir, 'p.db');
    openDatabase(file).close();
    const db = new Database(file);
    const broken = [
      ...migrations,
      { version: 9001, name: 'good', sql: 'CREATE TABLE extra_one (id TEXT)' },
      { version: 9002, name: 'bad', sql: 'CREATE TABLE extra_two (id TEXT); SELECT * FROM no_such_table' },
    ];
    expect(() => applyMigrations(db, broken)).toThrow(/no_such_table/);
    const names = db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE name LIKE 'extra_%'").all();
    expect(names).toEqual([]);
    expect(db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get()).toEqual({
      v: migrations.at(-1)?.version,
    });
    db.close();
  });

  it('migration versions are unique and increasing', () => {
    const versions = migrations.map((m) => m.version);
    expect(versions).toEqual([...new Set(versions)].sort((a, b) => a - b));
  });

  it('foreign keys are enforced', () => {
    const db = openDatabase(join(dir, 'p.db'));
    expect(() =>
      db
        .prepare(
          "INSERT INTO portals (id, org_id, endpoint_name, start_url, task, form_schema, created_at, updated_at) VALUES ('p', 'missing-org', 'e', 'u', 't', '{}', 'n', 'n')",
        )
        .run(),
    ).toThrow(/FOREIGN KEY/);
    db.close();
  });
});
