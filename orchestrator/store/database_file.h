// Which files a --db may name. One that keeps what is written to it: never SQLite's temporary
// or in-memory database, where a run would be "stored" and gone when the command exits. And
// one that is empty or benchgate's own: another program's SQLite database is refused before
// anything is written to it, as migrating it would change it (or fail halfway on a table of the
// same name). Store::open applies both; the read commands also refuse an empty file, which only
// `orchestrator run` turns into a store.
#pragma once

#include <string>

#include "common/util/expected.h"
#include "orchestrator/store/sqlite.h"

namespace benchgate::store {

// An error (kind invalid input) naming --db and the value when `path` names no file: "" (a
// temporary database), ":memory:", or a "file:" URI (which may name memory too).
Expected<void> check_database_file_name(const std::string& path);

// What a SQLite database holds, read without writing anything to it.
enum class DatabaseContents {
  kNothing,    // no table, view, index or trigger: a new or 0-byte file
  kBenchgate,  // a schema version (PRAGMA user_version) and benchgate's tables, also when
               // the version is newer than this build (migrating refuses it)
  kOther,      // anything else: another program's database
};

struct DatabaseIdentity {
  DatabaseContents contents = DatabaseContents::kNothing;
  std::string first_object;  // of a database that holds something: one of its tables, to name
};

Expected<DatabaseIdentity> identify_database(sqlite::Database& db);

// The error for a database of contents kOther at `path`, saying it was left unchanged.
Error not_a_benchgate_database(const std::string& path, const DatabaseIdentity& identity);

// For a command that only reads: an error (kind invalid input) when the existing file at `path`
// holds nothing (0 bytes, or a SQLite database without a table) or is another program's
// database. Nothing is written to it. A file it cannot read is left to Store::open, whose
// errors name every such case.
Expected<void> check_holds_a_store(const std::string& path, int busy_timeout_ms);

}  // namespace benchgate::store
