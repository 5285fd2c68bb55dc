// Applying the embedded schema migrations (migrations.h).
#include "orchestrator/store/migrations.h"

#include <string>

namespace benchgate::store {
namespace {

Expected<int> user_version(sqlite::Database& db) {
  auto stmt = db.prepare("PRAGMA user_version");
  if (!stmt) return stmt.error();
  auto row = stmt->step();
  if (!row) return row.error();
  return *row ? static_cast<int>(stmt->int64(0)) : 0;
}

// Runs migrations with foreign keys off and restores the connection's setting afterwards.
// Rebuilding a table (the only way SQLite changes a CHECK or a NOT NULL) drops it, and a drop
// with foreign keys on deletes every row that references it (ON DELETE CASCADE). The pragma is
// ignored inside a transaction, so it is set around them, as SQLite's documentation describes.
class ForeignKeysOff {
 public:
  explicit ForeignKeysOff(sqlite::Database& db) : db_(db) {
    auto stmt = db.prepare("PRAGMA foreign_keys");
    if (stmt) {
      auto row = stmt->step();
      was_on_ = row && *row && stmt->int64(0) != 0;
    }
    if (was_on_) (void)db_.exec("PRAGMA foreign_keys = OFF");
  }
  ~ForeignKeysOff() {
    if (was_on_) (void)db_.exec("PRAGMA foreign_keys = ON");
  }
  ForeignKeysOff(const ForeignKeysOff&) = delete;
  ForeignKeysOff& operator=(const ForeignKeysOff&) = delete;

 private:
  sqlite::Database& db_;
  bool was_on_ = false;
};

// A migration must leave every reference intact, as if foreign keys had been on.
Expected<void> check_foreign_keys(sqlite::Database& db) {
  auto stmt = db.prepare("PRAGMA foreign_key_check");
  if (!stmt) return stmt.error();
  auto row = stmt->step();
  if (!row) return row.error();
  if (*row) return Error{"it leaves rows of '" + stmt->text(0) + "' with a dangling reference"};
  return {};
}

}  // namespace

int latest_schema_version() {
  const auto& all = embedded_migrations();
  return all.empty() ? 0 : all.back().version;
}

Expected<int> apply_migrations(sqlite::Database& db, const std::vector<Migration>& migrations) {
  for (size_t i = 0; i < migrations.size(); ++i) {
    if (migrations[i].version != static_cast<int>(i) + 1) {
      return Error{"schema migrations must be numbered 1, 2, 3, ... without gaps; found " +
                   std::string(migrations[i].name) + " at position " + std::to_string(i + 1)};
    }
  }
  auto current = user_version(db);
  if (!current) return current.error();
  const int latest = migrations.empty() ? 0 : migrations.back().version;
  if (*current > latest) {
    return Error{"database '" + db.path() + "' has schema version " + std::to_string(*current) +
                 ", newer than this benchgate understands (" + std::to_string(latest) +
                 "); use a newer benchgate"};
  }
  ForeignKeysOff foreign_keys_off(db);
  for (const Migration& m : migrations) {
    if (m.version <= *current) continue;
    auto tx = sqlite::Transaction::begin(db);
    if (!tx) return Error{"migrating to schema " + std::string(m.name) + ": " + tx.message()};
    // The migration's own user_version can only be written by re-reading it inside the
    // transaction: another process may have migrated while we waited for the lock.
    auto now = user_version(db);
    if (!now) return now.error();
    if (*now >= m.version) continue;
    const std::string sql =
        std::string(m.sql) + "\n;PRAGMA user_version = " + std::to_string(m.version) + ";";
    if (auto ok = db.exec(sql.c_str()); !ok) {
      return Error{"schema migration " + std::string(m.name) + " failed: " + ok.message()};
    }
    if (auto ok = check_foreign_keys(db); !ok) {
      return Error{"schema migration " + std::string(m.name) + " failed: " + ok.message()};
    }
    if (auto ok = tx->commit(); !ok) {
      return Error{"committing schema migration " + std::string(m.name) + ": " + ok.message()};
    }
  }
  return user_version(db);
}

}  // namespace benchgate::store
