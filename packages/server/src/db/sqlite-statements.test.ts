import SQLite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { withPreparedStatements } from './sqlite-statements.js';

function database() {
  const sqlite = new SQLite(':memory:');
  sqlite.exec('create table t (n integer)');
  return sqlite;
}

describe('prepared statements of the embedded database', () => {
  it('reuses the statement of a SQL text it has prepared before', () => {
    const db = withPreparedStatements(database());
    const first = db.prepare('insert into t (n) values (?)');
    first.run([1]);
    expect(db.prepare('insert into t (n) values (?)')).toBe(first);
    expect(db.prepare('select count(*) as c from t').all([])).toEqual([{ c: 1 }]);
    db.close();
  });

  it('keeps at most its capacity, dropping the least recently used', () => {
    const db = withPreparedStatements(database(), 2);
    const a = db.prepare('select 1');
    const b = db.prepare('select 2');
    expect(db.prepare('select 1')).toBe(a); // now b is the least recently used
    db.prepare('select 3');
    expect(db.prepare('select 1')).toBe(a);
    expect(db.prepare('select 2')).not.toBe(b);
    db.close();
  });

  it('prepares a fresh statement while the kept one is still iterating', () => {
    const db = withPreparedStatements(database());
    db.prepare('insert into t (n) values (?)').run([1]);
    db.prepare('insert into t (n) values (?)').run([2]);
    const iterating = db.prepare('select n from t order by n');
    const rows = iterating.iterate([]);
    expect(rows.next().value).toEqual({ n: 1 });
    const other = db.prepare('select n from t order by n');
    expect(other).not.toBe(iterating);
    expect(other.all([])).toEqual([{ n: 1 }, { n: 2 }]);
    expect(rows.next().value).toEqual({ n: 2 });
    expect(rows.next().done).toBe(true);
    db.close();
  });
});
