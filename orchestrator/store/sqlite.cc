// The SQLite RAII layer (sqlite.h).
#include "orchestrator/store/sqlite.h"

#include <sqlite3.h>

#include <utility>

namespace benchgate::store::sqlite {

Statement::Statement(Statement&& other) noexcept
    : db_(other.db_),
      stmt_(other.stmt_),
      busy_timeout_ms_(other.busy_timeout_ms_),
      bind_error_(other.bind_error_),
      unknown_parameter_(std::move(other.unknown_parameter_)) {
  other.stmt_ = nullptr;
}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(stmt_);
    db_ = other.db_;
    stmt_ = other.stmt_;
    busy_timeout_ms_ = other.busy_timeout_ms_;
    bind_error_ = other.bind_error_;
    unknown_parameter_ = std::move(other.unknown_parameter_);
    other.stmt_ = nullptr;
  }
  return *this;
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

int Statement::parameter(std::string_view name) {
  const int index = sqlite3_bind_parameter_index(stmt_, std::string(name).c_str());
  if (index == 0 && unknown_parameter_.empty()) unknown_parameter_ = std::string(name);
  return index;
}

Statement& Statement::bind(int index, int64_t value) {
  const int rc = sqlite3_bind_int64(stmt_, index, value);
  if (rc != SQLITE_OK && bind_error_ == 0) bind_error_ = rc;
  return *this;
}

Statement& Statement::bind(int index, double value) {
  const int rc = sqlite3_bind_double(stmt_, index, value);
  if (rc != SQLITE_OK && bind_error_ == 0) bind_error_ = rc;
  return *this;
}

Statement& Statement::bind(int index, std::string_view text) {
  const int rc =
      sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  if (rc != SQLITE_OK && bind_error_ == 0) bind_error_ = rc;
  return *this;
}

Statement& Statement::bind_blob(int index, std::span<const uint8_t> bytes) {
  // A zero-length blob must still be a blob, not NULL: sqlite3_bind_blob64 binds NULL for a
  // null pointer, so give it a valid one.
  static const uint8_t kEmpty = 0;
  const void* data = bytes.empty() ? &kEmpty : bytes.data();
  const int rc = sqlite3_bind_blob64(stmt_, index, data, bytes.size(), SQLITE_TRANSIENT);
  if (rc != SQLITE_OK && bind_error_ == 0) bind_error_ = rc;
  return *this;
}

Statement& Statement::bind_null(int index) {
  const int rc = sqlite3_bind_null(stmt_, index);
  if (rc != SQLITE_OK && bind_error_ == 0) bind_error_ = rc;
  return *this;
}

Statement& Statement::bind(int index, std::optional<int64_t> value) {
  return value ? bind(index, *value) : bind_null(index);
}

Statement& Statement::bind(int index, std::optional<double> value) {
  return value ? bind(index, *value) : bind_null(index);
}

Expected<bool> Statement::step() {
  if (!unknown_parameter_.empty()) {
    return Error{"binding a parameter failed: the statement has no parameter " +
                 unknown_parameter_};
  }
  if (bind_error_ != 0) {
    return Error{std::string("binding a parameter failed: ") + sqlite3_errstr(bind_error_)};
  }
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  if ((rc & 0xff) == SQLITE_BUSY) {
    return Error{"the database is " + locked_message(busy_timeout_ms_)};
  }
  return Error{sqlite3_errmsg(db_)};
}

Expected<void> Statement::run() {
  while (true) {
    auto row = step();
    if (!row) return row.error();
    if (!*row) return {};
  }
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  bind_error_ = 0;
  unknown_parameter_.clear();
}

bool Statement::is_null(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

int64_t Statement::int64(int column) const { return sqlite3_column_int64(stmt_, column); }

double Statement::real(int column) const { return sqlite3_column_double(stmt_, column); }

std::string Statement::text(int column) const {
  const auto* p = sqlite3_column_text(stmt_, column);
  const int n = sqlite3_column_bytes(stmt_, column);
  return p ? std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(n)) : std::string();
}

std::vector<uint8_t> Statement::blob(int column) const {
  const auto* p = static_cast<const uint8_t*>(sqlite3_column_blob(stmt_, column));
  const int n = sqlite3_column_bytes(stmt_, column);
  return p ? std::vector<uint8_t>(p, p + n) : std::vector<uint8_t>();
}

std::optional<int64_t> Statement::optional_int64(int column) const {
  if (is_null(column)) return std::nullopt;
  return int64(column);
}

std::optional<double> Statement::optional_real(int column) const {
  if (is_null(column)) return std::nullopt;
  return real(column);
}

Expected<std::unique_ptr<Database>> Database::open(const std::string& path, int flags) {
  if (flags == 0) flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &db, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    return Error{"cannot open database '" + path + "': " + message};
  }
  sqlite3_extended_result_codes(db, 1);
  return std::unique_ptr<Database>(new Database(db, path));
}

Database::~Database() { sqlite3_close_v2(db_); }

Expected<void> Database::exec(const char* sql) {
  char* message = nullptr;
  const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &message);
  if (rc == SQLITE_OK) return {};
  std::string text = message ? message : sqlite3_errstr(rc);
  sqlite3_free(message);
  if ((rc & 0xff) == SQLITE_BUSY) text = "the database is " + locked_message(busy_timeout_ms_);
  return Error{text};
}

Expected<Statement> Database::prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  const int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) return Error{last_error()};
  return Statement(db_, stmt, busy_timeout_ms_);
}

void Database::set_busy_timeout(int ms) {
  sqlite3_busy_timeout(db_, ms);
  busy_timeout_ms_ = ms > 0 ? ms : 0;
}

std::string locked_message(int busy_timeout_ms) {
  return "locked by another process (gave up after waiting " + std::to_string(busy_timeout_ms) +
         " ms for it; --db-busy-timeout sets the wait)";
}

int64_t Database::last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }

int Database::changes() const { return sqlite3_changes(db_); }

bool Database::read_only() const { return sqlite3_db_readonly(db_, "main") == 1; }

std::string Database::last_error() const {
  if ((last_error_code() & 0xff) == SQLITE_BUSY) {
    return "the database is " + locked_message(busy_timeout_ms_);
  }
  return sqlite3_errmsg(db_);
}

int Database::last_error_code() const { return sqlite3_extended_errcode(db_); }

Expected<Transaction> Transaction::begin(Database& db) {
  if (auto ok = db.exec("BEGIN IMMEDIATE"); !ok) return ok.error();
  return Transaction(&db);
}

Transaction::~Transaction() {
  if (db_) (void)db_->exec("ROLLBACK");
}

Expected<void> Transaction::commit() {
  Database* db = std::exchange(db_, nullptr);
  if (auto ok = db->exec("COMMIT"); !ok) {
    (void)db->exec("ROLLBACK");
    return ok.error();
  }
  return {};
}

Error db_error(const Database& db, std::string_view context) {
  return Error{std::string(context) + ": " + db.last_error()};
}

}  // namespace benchgate::store::sqlite
