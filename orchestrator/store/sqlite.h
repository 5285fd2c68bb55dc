// A thin RAII layer over the SQLite3 C API: a connection, a prepared statement with bound
// parameters, and a transaction that rolls back unless committed. Values from users are only
// ever bound as parameters; SQL text is always a constant of the program.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/util/expected.h"

struct sqlite3;
struct sqlite3_stmt;

namespace benchgate::store::sqlite {

// A prepared statement. Bind parameters by 1-based index (parameter() gives the index of a
// named one, ":name"), then step() through the rows. A bind failure or an unknown parameter
// name is remembered and reported by the next step().
class Statement {
 public:
  // busy_timeout_ms: the connection's, for the message of a write that gave up waiting.
  Statement(sqlite3* db, sqlite3_stmt* stmt, int busy_timeout_ms)
      : db_(db), stmt_(stmt), busy_timeout_ms_(busy_timeout_ms) {}
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  // The index of the parameter ":name"; an unknown name makes the next step() fail naming it.
  int parameter(std::string_view name);
  Statement& bind(int index, int64_t value);
  Statement& bind(int index, double value);
  Statement& bind(int index, std::string_view text);
  Statement& bind_blob(int index, std::span<const uint8_t> bytes);
  Statement& bind_null(int index);
  Statement& bind(int index, std::optional<int64_t> value);
  Statement& bind(int index, std::optional<double> value);

  // true: a row is available; false: the statement is done.
  Expected<bool> step();
  // Steps until done (for statements that return no rows).
  Expected<void> run();
  // Ready to bind and step again; keeps nothing bound.
  void reset();

  bool is_null(int column) const;
  int64_t int64(int column) const;
  double real(int column) const;
  std::string text(int column) const;
  std::vector<uint8_t> blob(int column) const;
  std::optional<int64_t> optional_int64(int column) const;
  std::optional<double> optional_real(int column) const;

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_;
  int busy_timeout_ms_;
  int bind_error_ = 0;
  std::string unknown_parameter_;
};

// One connection. Not thread-safe: one Database per thread (SQLite's own locking coordinates
// connections and processes).
class Database {
 public:
  // flags: SQLITE_OPEN_* (read-write and create by default).
  static Expected<std::unique_ptr<Database>> open(const std::string& path, int flags = 0);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Runs constant SQL (schema, pragmas); never SQL built from user values.
  Expected<void> exec(const char* sql);
  Expected<Statement> prepare(std::string_view sql);

  // How long a statement waits for another connection's lock before it fails with SQLITE_BUSY
  // (0: not at all, the default of a new connection); the failure's message names it.
  void set_busy_timeout(int ms);
  int busy_timeout_ms() const { return busy_timeout_ms_; }

  int64_t last_insert_rowid() const;
  int changes() const;
  bool read_only() const;
  const std::string& path() const { return path_; }
  sqlite3* handle() { return db_; }

  // The connection's last error as one line: "database is locked (SQLITE_BUSY)".
  std::string last_error() const;
  // The extended result code of the last failed call.
  int last_error_code() const;

 private:
  Database(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  sqlite3* db_;
  std::string path_;
  int busy_timeout_ms_ = 0;
};

// BEGIN IMMEDIATE on construction (the write lock is taken at once, waiting up to the busy
// timeout), ROLLBACK on destruction unless commit() succeeded.
class Transaction {
 public:
  static Expected<Transaction> begin(Database& db);
  Transaction(Transaction&& other) noexcept : db_(other.db_) { other.db_ = nullptr; }
  Transaction& operator=(Transaction&&) = delete;
  Transaction(const Transaction&) = delete;
  ~Transaction();

  Expected<void> commit();

 private:
  explicit Transaction(Database* db) : db_(db) {}
  Database* db_;
};

// Why a statement failed that gave up waiting for another connection's lock: "locked by
// another process (gave up after waiting 5000 ms for it; --db-busy-timeout sets the wait)".
// Every command that opens the store has that flag, serve included.
std::string locked_message(int busy_timeout_ms);

// An Error whose message is `context: <the connection's last error>`.
Error db_error(const Database& db, std::string_view context);

}  // namespace benchgate::store::sqlite
