//! The core's SQLite reader against SQLite itself: every row of databases SQLite wrote (rows
//! past their page, trees several levels deep, a log not yet checkpointed, a transaction not
//! yet committed) reads back as SQLite reads it, and a cut or altered file is an error with a
//! code, never a panic.

use baton_core::ErrorCode;
use baton_core::transcripts::sqlite::{Database, Row, SqlValue, Wal};
use proptest::prelude::*;
use rusqlite::{Connection, types::ValueRef};
use std::ops::ControlFlow;
use std::path::Path;

/// A database of `rows` rows in WAL mode, nothing checkpointed, with texts from a few bytes
/// to several pages.
fn written(dir: &Path, rows: i64) -> Connection {
    let db = Connection::open(dir.join("t.db")).unwrap();
    db.execute_batch(
        "PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0;
         CREATE TABLE \"part\" (\"id\" text PRIMARY KEY NOT NULL, \"n\" integer, \"r\" real,
           \"data\" text NOT NULL, `b` blob);
         CREATE TABLE kv (k INTEGER PRIMARY KEY, v);",
    )
    .unwrap();
    let tx = db.unchecked_transaction().unwrap();
    for i in 0..rows {
        let size = [3usize, 700, 4_100, 20_000, 90_000][(i % 5) as usize];
        let text: String = format!("row {i} ").repeat(size / 6 + 1);
        tx.execute(
            "INSERT INTO part VALUES (?1, ?2, ?3, ?4, ?5)",
            rusqlite::params![
                format!("prt_{i:06}"),
                [
                    0i64,
                    1,
                    -1,
                    127,
                    -129,
                    40_000,
                    -8_000_000,
                    i64::MAX,
                    i64::MIN
                ][(i % 9) as usize]
                    * i.signum().max(1),
                if i % 4 == 0 {
                    None
                } else {
                    Some(i as f64 / 3.0)
                },
                text,
                (i % 3 == 0).then(|| vec![i as u8; (i % 50) as usize]),
            ],
        )
        .unwrap();
        tx.execute(
            "INSERT INTO kv VALUES (?1, ?2)",
            rusqlite::params![i * 7, i],
        )
        .unwrap();
    }
    tx.commit().unwrap();
    db
}

/// Every row of `table` as SQLite reads it.
fn sqlite_rows(db: &Connection, table: &str) -> Vec<Vec<SqlValue>> {
    let mut stmt = db
        .prepare(&format!("SELECT * FROM {table} ORDER BY rowid"))
        .unwrap();
    let columns = stmt.column_count();
    stmt.query_map([], |row| {
        Ok((0..columns)
            .map(|i| match row.get_ref(i).unwrap() {
                ValueRef::Null => SqlValue::Null,
                ValueRef::Integer(n) => SqlValue::Integer(n),
                ValueRef::Real(r) => SqlValue::Real(r),
                ValueRef::Text(t) => SqlValue::Text(String::from_utf8(t.to_vec()).unwrap()),
                ValueRef::Blob(b) => SqlValue::Blob(b.to_vec()),
            })
            .collect())
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

/// Every row of `table` as the core reads the files.
fn core_rows(dir: &Path, table: &str) -> baton_core::Result<Vec<Vec<SqlValue>>> {
    let main = std::fs::read(dir.join("t.db")).unwrap_or_default();
    let wal = std::fs::read(dir.join("t.db-wal")).unwrap_or_default();
    read(&main, &wal, table)
}

fn read(main: &[u8], wal: &[u8], table: &str) -> baton_core::Result<Vec<Vec<SqlValue>>> {
    let wal = Wal::parse(wal)?;
    let db = Database::open(&main, Some(&wal))?;
    let Some(table) = db.table(table)? else {
        return Ok(Vec::new());
    };
    let mut rows = Vec::new();
    db.scan(&table, None, &mut |row: Row| {
        rows.push(row.values);
        Ok(ControlFlow::Continue(()))
    })?;
    Ok(rows)
}

#[test]
fn every_row_reads_as_sqlite_reads_it_from_the_log_and_after_a_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let db = written(dir.path(), 600);
    let wal = std::fs::metadata(dir.path().join("t.db-wal"))
        .unwrap()
        .len();
    assert!(
        wal > 1_000_000,
        "the rows should still be in the log ({wal} bytes)"
    );
    for table in ["part", "kv"] {
        let expected = sqlite_rows(&db, table);
        assert_eq!(expected.len(), 600);
        assert_eq!(
            core_rows(dir.path(), table).unwrap(),
            expected,
            "{table}, from the log"
        );
    }
    db.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")
        .unwrap();
    assert_eq!(
        std::fs::metadata(dir.path().join("t.db-wal"))
            .unwrap()
            .len(),
        0
    );
    let expected = sqlite_rows(&db, "part");
    assert_eq!(
        core_rows(dir.path(), "part").unwrap(),
        expected,
        "after a checkpoint"
    );
    // The INTEGER PRIMARY KEY reads as the rowid it is, and columns name what they hold.
    let main = std::fs::read(dir.path().join("t.db")).unwrap();
    let opened = Database::open(&main, None).unwrap();
    let kv = opened.table("KV").unwrap().unwrap();
    assert_eq!(kv.columns, ["k", "v"]);
    assert_eq!(kv.rowid_column, Some(0));
    let part = opened.table("part").unwrap().unwrap();
    assert_eq!(part.columns, ["id", "n", "r", "data", "b"]);
    assert_eq!(part.column("DATA"), Some(3));
}

#[test]
fn a_transaction_not_yet_committed_is_not_read_even_when_its_pages_reached_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let db = written(dir.path(), 50);
    let before = sqlite_rows(&db, "part");
    let committed = std::fs::metadata(dir.path().join("t.db-wal"))
        .unwrap()
        .len();
    // A tiny cache makes SQLite spill the open transaction's pages into the log.
    db.execute_batch("PRAGMA cache_size=2; BEGIN;").unwrap();
    for i in 0..200 {
        db.execute(
            "INSERT INTO part (id, data) VALUES (?1, ?2)",
            rusqlite::params![format!("new_{i}"), "x".repeat(5_000)],
        )
        .unwrap();
    }
    let spilled = std::fs::metadata(dir.path().join("t.db-wal"))
        .unwrap()
        .len();
    assert!(
        spilled > committed + 500_000,
        "the open transaction should have spilled into the log"
    );
    let read = core_rows(dir.path(), "part").unwrap();
    assert_eq!(read, before, "the log had grown to {spilled} bytes");
    db.execute_batch("COMMIT;").unwrap();
    assert_eq!(core_rows(dir.path(), "part").unwrap().len(), 250);
}

#[test]
fn a_cycle_in_the_tree_is_an_error_not_a_hang() {
    let dir = tempfile::tempdir().unwrap();
    let db = written(dir.path(), 300);
    db.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")
        .unwrap();
    let root: u32 = db
        .query_row(
            "SELECT rootpage FROM sqlite_schema WHERE name = 'part'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    drop(db);
    let mut main = std::fs::read(dir.path().join("t.db")).unwrap();
    let page_size = u16::from_be_bytes([main[16], main[17]]) as usize;
    let at = (root as usize - 1) * page_size;
    assert_eq!(main[at], 0x05, "part's root should be an interior page");
    // Its right-most child becomes the root itself.
    main[at + 8..at + 12].copy_from_slice(&root.to_be_bytes());
    let err = read(&main, &[], "part").unwrap_err();
    assert_eq!(err.code, ErrorCode::DatabaseDamaged);
    assert!(err.message.contains("twice"), "{}", err.message);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
    #[test]
    fn a_cut_or_altered_database_is_a_coded_error_never_a_panic(
        cut in 0usize..200_000,
        flips in proptest::collection::vec((0usize..200_000, any::<u8>()), 0..40),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let db = written(dir.path(), 40);
        db.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);").unwrap();
        drop(db);
        let mut main = std::fs::read(dir.path().join("t.db")).unwrap();
        for (at, byte) in flips {
            let len = main.len();
            main[at % len] ^= byte;
        }
        main.truncate(cut.min(main.len()));
        for table in ["part", "kv"] {
            if let Err(err) = read(&main, &[], table) {
                prop_assert_eq!(err.code, ErrorCode::DatabaseDamaged);
            }
        }
        // An altered log is read up to its first frame that does not hold together.
        let _ = Wal::parse(&main);
    }
}
