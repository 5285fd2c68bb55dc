// Opening the store: checks a user can act on, connection settings, migrations, and marking
// runs whose writer is gone as abandoned.
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>

#include "orchestrator/store/database_file.h"
#include "orchestrator/store/migrations.h"
#include "orchestrator/store/run_owner.h"
#include "orchestrator/store/sqlite.h"
#include "orchestrator/store/store.h"
#include "orchestrator/store/store_internal.h"

namespace benchgate::store {
namespace {

namespace fs = std::filesystem;

// The checks SQLite would otherwise answer with "unable to open database file".
Expected<void> check_path(const std::string& path) {
  if (auto ok = check_database_file_name(path); !ok) return ok;
  std::error_code ec;
  fs::path folder = fs::path(path).parent_path();
  if (folder.empty()) folder = ".";
  if (!fs::exists(folder, ec)) {
    return Error{"cannot open database '" + path + "': folder '" + folder.string() +
                 "' does not exist (create it, or choose another file with --db)"};
  }
  if (!fs::is_directory(folder, ec)) {
    return Error{"cannot open database '" + path + "': '" + folder.string() + "' is not a folder"};
  }
  const bool exists = fs::exists(path, ec);
  if (exists && fs::is_directory(path, ec)) {
    return Error{"cannot open database '" + path + "': it is a folder, not a file"};
  }
  if (exists && access(path.c_str(), W_OK) != 0) {
    return Error{"database '" + path +
                 "' is read-only (no write permission); benchgate stores every run, so it needs "
                 "to write: fix the permissions or choose another file with --db"};
  }
  // WAL mode keeps PATH-wal and PATH-shm next to the database, so the folder must be writable
  // even when the file already exists.
  if (access(folder.c_str(), W_OK) != 0) {
    return Error{"cannot open database '" + path + "': folder '" + folder.string() +
                 "' is not writable (SQLite keeps its journal files next to the database)"};
  }
  return {};
}

Expected<std::string> pragma_text(sqlite::Database& db, const char* sql) {
  auto stmt = db.prepare(sql);
  if (!stmt) return stmt.error();
  auto row = stmt->step();
  if (!row) return row.error();
  return *row ? stmt->text(0) : std::string();
}

Error open_error(const sqlite::Database& db, const std::string& what) {
  const int code = db.last_error_code() & 0xff;
  if (code == SQLITE_NOTADB) {
    return Error{"'" + db.path() + "' is not a SQLite database (or is corrupt); choose another " +
                 "file with --db"};
  }
  if (code == SQLITE_BUSY) {
    return Error{"database '" + db.path() + "' is " + sqlite::locked_message(db.busy_timeout_ms())};
  }
  if (code == SQLITE_LOCKED) {
    return Error{"database '" + db.path() + "' is locked: " + what};
  }
  if (code == SQLITE_READONLY || code == SQLITE_CANTOPEN || code == SQLITE_PERM) {
    return Error{"cannot write database '" + db.path() + "': " + what};
  }
  return Error{"opening database '" + db.path() + "': " + what};
}

}  // namespace

Store::Store(std::unique_ptr<sqlite::Database> db, uint64_t instance)
    : db_(std::move(db)), instance_(instance), owner_(owner_token(instance)) {}

Store::~Store() { release_instance(instance_); }

Expected<std::unique_ptr<Store>> Store::open(const std::string& path, const OpenOptions& options) {
  if (auto ok = check_path(path); !ok) return ok.error();
  std::error_code ec;
  const bool existed = fs::exists(path, ec);
  auto db = sqlite::Database::open(path);
  if (!db) {
    if (existed) return db.error();
    return Error{db.message() + " (the file could not be created: check the folder's " +
                 "permissions and file system)"};
  }
  sqlite::Database& d = **db;
  d.set_busy_timeout(options.busy_timeout_ms);
  if (d.read_only()) {
    return Error{"database '" + path + "' was opened read-only; benchgate needs to write to it"};
  }
  // The first read of the file is where SQLite notices a file that is not a database.
  if (auto v = pragma_text(d, "PRAGMA schema_version"); !v) return open_error(d, v.message());
  // Before the first write (WAL mode is one): another program's database stays as it was.
  auto identity = identify_database(d);
  if (!identity) return open_error(d, identity.message());
  if (identity->contents == DatabaseContents::kOther) {
    return not_a_benchgate_database(path, *identity);
  }
  auto mode = pragma_text(d, "PRAGMA journal_mode = WAL");
  if (!mode) return open_error(d, mode.message());
  if (*mode != "wal") {
    return Error{"database '" + path + "': cannot switch to WAL mode (journal mode is '" + *mode +
                 "'); is it on a network file system?"};
  }
  for (const char* pragma : {"PRAGMA foreign_keys = ON", "PRAGMA synchronous = NORMAL"}) {
    if (auto ok = d.exec(pragma); !ok) return open_error(d, ok.message());
  }
  auto version = apply_migrations(d, embedded_migrations());
  if (!version) {
    const int code = d.last_error_code() & 0xff;
    if (code == SQLITE_BUSY || code == SQLITE_READONLY) return open_error(d, version.message());
    return version.error();
  }
  std::unique_ptr<Store> store(new Store(std::move(*db), register_instance()));
  store->schema_version_ = *version;
  if (auto ok = store->sweep_abandoned(); !ok) {
    return Error{"database '" + path + "': marking abandoned runs: " + ok.message()};
  }
  return store;
}

Expected<void> Store::sweep_abandoned() {
  std::vector<int64_t> gone;
  {
    auto stmt = db_->prepare("SELECT id, owner FROM runs WHERE status = 'running' ORDER BY id");
    if (!stmt) return stmt.error();
    while (true) {
      auto row = stmt->step();
      if (!row) return row.error();
      if (!*row) break;
      if (!owner_alive(stmt->text(1))) gone.push_back(stmt->int64(0));
    }
  }
  if (gone.empty()) return {};
  auto tx = sqlite::Transaction::begin(*db_);
  if (!tx) return tx.error();
  auto update = db_->prepare(
      "UPDATE runs SET status = 'abandoned', finished_at = ?1 WHERE id = ?2 AND status = "
      "'running'");
  if (!update) return update.error();
  const int64_t now = unix_now_ns();
  for (int64_t id : gone) {
    update->reset();
    update->bind(1, now).bind(2, id);
    if (auto ok = update->run(); !ok) return ok.error();
    // Another process may have finished it meanwhile; report only what this open changed.
    if (db_->changes() > 0) abandoned_.push_back(id);
  }
  return tx->commit();
}

}  // namespace benchgate::store
