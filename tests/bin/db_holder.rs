//! A test process that stands for an agent writing its SQLite database: it opens the database
//! as OpenCode does (WAL), takes the write lock (`BEGIN IMMEDIATE`), writes a row, prints
//! `holding`, and keeps the transaction open until a line arrives on its standard input; then
//! it commits and prints `committed` (or `failed: …` when the commit could not be made).
//!
//! Usage: `db-holder DB SQL` (the statement to run inside the transaction).

use std::io::{BufRead, Write};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(path), Some(sql)) = (args.get(1), args.get(2)) else {
        eprintln!("db-holder DB SQL");
        std::process::exit(2);
    };
    let db = rusqlite::Connection::open(path).expect("open the database");
    db.busy_timeout(std::time::Duration::from_secs(5))
        .expect("busy timeout");
    db.execute_batch("PRAGMA journal_mode=WAL; BEGIN IMMEDIATE;")
        .expect("take the write lock");
    db.execute_batch(sql).expect("write inside the transaction");
    println!("holding");
    std::io::stdout().flush().ok();
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line).ok();
    match db.execute_batch("COMMIT;") {
        Ok(()) => println!("committed"),
        Err(e) => println!("failed: {e}"),
    }
}
