// See database_file.h.
#include "orchestrator/store/database_file.h"

#include <sqlite3.h>

#include <array>
#include <set>

namespace benchgate::store {
namespace {

// Tables that every schema version of benchgate has had since 0001_initial (the migrations that
// rebuild one rename the copy back in the same transaction): a file with a schema version but
// without them is not benchgate's.
constexpr std::array<const char*, 5> kStoreTables = {"baselines", "repetitions", "runs", "testbeds",
                                                     "workloads"};

Error wrong_name(const std::string& path, const std::string& what) {
  return Error{"--db '" + path + "': " + what +
                   ", which keeps nothing once the command exits; name a database file, such as "
                   "benchgate.db",
               ErrorKind::kInvalidInput};
}

}  // namespace

Expected<void> check_database_file_name(const std::string& path) {
  if (path.empty()) return wrong_name(path, "an empty name is SQLite's temporary database");
  if (path == ":memory:") return wrong_name(path, "this is SQLite's in-memory database");
  if (path.rfind("file:", 0) == 0) {
    return Error{"--db '" + path +
                     "': a 'file:' URI is not taken, as it may name an in-memory database, which "
                     "keeps nothing once the command exits; write the file's path (./" +
                     path + " for a file whose name starts with 'file:')",
                 ErrorKind::kInvalidInput};
  }
  return {};
}

Expected<DatabaseIdentity> identify_database(sqlite::Database& db) {
  auto version = db.prepare("PRAGMA user_version");
  if (!version) return version.error();
  auto row = version->step();
  if (!row) return row.error();
  const int64_t user_version = *row ? version->int64(0) : 0;

  // Every object a program made (SQLite's own are named sqlite_...), tables first.
  auto objects = db.prepare(
      "SELECT name FROM sqlite_master WHERE substr(name, 1, 7) <> 'sqlite_' "
      "ORDER BY type <> 'table', name");
  if (!objects) return objects.error();
  DatabaseIdentity identity;
  std::set<std::string> names;
  while (true) {
    auto next = objects->step();
    if (!next) return next.error();
    if (!*next) break;
    names.insert(objects->text(0));
    if (identity.first_object.empty()) identity.first_object = objects->text(0);
  }
  if (names.empty() && user_version == 0) return identity;
  // Benchgate's first migration sets the schema version in the transaction that creates the
  // tables, so tables without a version are another program's; so is a version without the
  // tables, however high: a version newer than this build is a store only when it has them
  // (apply_migrations then refuses it, saying so), or another program's database would be
  // switched to WAL mode before that refusal.
  bool ours = user_version > 0;
  for (const char* table : kStoreTables) ours = ours && names.count(table) > 0;
  identity.contents = ours ? DatabaseContents::kBenchgate : DatabaseContents::kOther;
  return identity;
}

Error not_a_benchgate_database(const std::string& path, const DatabaseIdentity& identity) {
  const std::string holds =
      identity.first_object.empty()
          ? "with a schema version of its own and no table"
          : "holding '" + identity.first_object + "', without benchgate's schema";
  return Error{"'" + path + "' is not a benchgate database: it is a SQLite database " + holds +
                   "; it was left unchanged: choose another file with --db",
               ErrorKind::kInvalidInput};
}

Expected<void> check_holds_a_store(const std::string& path, int busy_timeout_ms) {
  // Read-write without create, as Store::open opens it: a read-only probe of a WAL database
  // needs its -shm file, and reading writes nothing either way.
  auto db = sqlite::Database::open(path, SQLITE_OPEN_READWRITE);
  if (!db) return {};
  (*db)->set_busy_timeout(busy_timeout_ms);
  auto identity = identify_database(**db);
  if (!identity) return {};
  if (identity->contents == DatabaseContents::kOther) {
    return not_a_benchgate_database(path, *identity);
  }
  if (identity->contents == DatabaseContents::kNothing) {
    return Error{"'" + path +
                     "' is not a benchgate database: it holds nothing, and a command that only "
                     "reads writes no schema into it; `orchestrator run --db " +
                     path + "` stores runs there, or pass another --db",
                 ErrorKind::kInvalidInput};
  }
  return {};
}

}  // namespace benchgate::store
