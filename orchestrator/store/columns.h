// One column table per stored record: each entry names a SQL column and says how a record's
// field is bound to it and read back from it. The INSERT, its named parameters (:column) and
// the SELECT list are all generated from the same table, so a column the store writes is
// always read back and never bound or read by a hand-counted position (record_columns.h holds
// the tables).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "orchestrator/store/sqlite.h"
#include "orchestrator/store/store_internal.h"

namespace benchgate::store::columns {

template <typename R>
struct Column {
  using Record = R;
  std::string_view name;
  void (*bind)(sqlite::Statement& s, int parameter, const R& r);
  void (*read)(const sqlite::Statement& s, int column, R& r);
};

template <typename R>
using Columns = std::span<const Column<R>>;

// How a value of type T is bound and read. Unsigned counters are stored as SQLite's signed
// integers (clamped, see store_internal.h); lists and maps as the JSON the schema checks.
template <typename T>
struct Codec;

template <>
struct Codec<int64_t> {
  static void bind(sqlite::Statement& s, int i, int64_t v) { s.bind(i, v); }
  static int64_t read(const sqlite::Statement& s, int c) { return s.int64(c); }
};
template <>
struct Codec<int> {
  static void bind(sqlite::Statement& s, int i, int v) { s.bind(i, static_cast<int64_t>(v)); }
  static int read(const sqlite::Statement& s, int c) { return static_cast<int>(s.int64(c)); }
};
template <>
struct Codec<uint32_t> {
  static void bind(sqlite::Statement& s, int i, uint32_t v) { s.bind(i, static_cast<int64_t>(v)); }
  static uint32_t read(const sqlite::Statement& s, int c) {
    return static_cast<uint32_t>(s.int64(c));
  }
};
template <>
struct Codec<uint64_t> {
  static void bind(sqlite::Statement& s, int i, uint64_t v) { s.bind(i, internal::as_int(v)); }
  static uint64_t read(const sqlite::Statement& s, int c) { return internal::as_uint(s.int64(c)); }
};
template <>
struct Codec<double> {
  static void bind(sqlite::Statement& s, int i, double v) { s.bind(i, v); }
  static double read(const sqlite::Statement& s, int c) { return s.real(c); }
};
template <>
struct Codec<std::string> {
  static void bind(sqlite::Statement& s, int i, const std::string& v) {
    s.bind(i, std::string_view(v));
  }
  static std::string read(const sqlite::Statement& s, int c) { return s.text(c); }
};
template <>
struct Codec<std::vector<uint8_t>> {
  static void bind(sqlite::Statement& s, int i, const std::vector<uint8_t>& v) {
    s.bind_blob(i, v);
  }
  static std::vector<uint8_t> read(const sqlite::Statement& s, int c) { return s.blob(c); }
};
template <>
struct Codec<bool> {
  static void bind(sqlite::Statement& s, int i, bool v) { s.bind(i, int64_t{v ? 1 : 0}); }
  static bool read(const sqlite::Statement& s, int c) { return s.int64(c) != 0; }
};

// JSON columns: the text the store writes, parsed back (store_json.cc).
template <typename T>
struct JsonCodec {
  static void bind(sqlite::Statement& s, int i, const T& v) { s.bind(i, internal::to_json(v)); }
};
template <>
struct Codec<std::vector<std::string>> : JsonCodec<std::vector<std::string>> {
  static std::vector<std::string> read(const sqlite::Statement& s, int c) {
    return internal::strings_from_json(s.text(c));
  }
};
template <>
struct Codec<std::vector<int64_t>> : JsonCodec<std::vector<int64_t>> {
  static std::vector<int64_t> read(const sqlite::Statement& s, int c) {
    return internal::ints_from_json(s.text(c));
  }
};
template <>
struct Codec<std::vector<StoredSessionsEnded>> : JsonCodec<std::vector<StoredSessionsEnded>> {
  static std::vector<StoredSessionsEnded> read(const sqlite::Statement& s, int c) {
    return internal::sessions_ended_from_json(s.text(c));
  }
};
template <>
struct Codec<std::map<std::string, std::string>> : JsonCodec<std::map<std::string, std::string>> {
  static std::map<std::string, std::string> read(const sqlite::Statement& s, int c) {
    return internal::string_map_from_json(s.text(c));
  }
};
template <>
struct Codec<std::map<std::string, uint64_t>> : JsonCodec<std::map<std::string, uint64_t>> {
  static std::map<std::string, uint64_t> read(const sqlite::Statement& s, int c) {
    return internal::count_map_from_json(s.text(c));
  }
};

// Nothing is NULL.
template <typename T>
struct Codec<std::optional<T>> {
  static void bind(sqlite::Statement& s, int i, const std::optional<T>& v) {
    if (v) {
      Codec<T>::bind(s, i, *v);
    } else {
      s.bind_null(i);
    }
  }
  static std::optional<T> read(const sqlite::Statement& s, int c) {
    if (s.is_null(c)) return std::nullopt;
    return Codec<T>::read(s, c);
  }
};

template <typename M>
struct MemberOf;
template <typename R, typename T>
struct MemberOf<T R::*> {
  using Record = R;
  using Type = T;
};

// The column `name` holds the record's field `Member` as it is.
template <auto Member>
constexpr Column<typename MemberOf<decltype(Member)>::Record> field(std::string_view name) {
  using R = typename MemberOf<decltype(Member)>::Record;
  using T = typename MemberOf<decltype(Member)>::Type;
  return {name, [](sqlite::Statement& s, int i, const R& r) { Codec<T>::bind(s, i, r.*Member); },
          [](const sqlite::Statement& s, int c, R& r) { r.*Member = Codec<T>::read(s, c); }};
}

// The column `name` holds the field `Inner` of the record's member `Outer` (a nested key).
template <auto Outer, auto Inner>
constexpr Column<typename MemberOf<decltype(Outer)>::Record> nested_field(std::string_view name) {
  using R = typename MemberOf<decltype(Outer)>::Record;
  using T = typename MemberOf<decltype(Inner)>::Type;
  return {
      name,
      [](sqlite::Statement& s, int i, const R& r) { Codec<T>::bind(s, i, (r.*Outer).*Inner); },
      [](const sqlite::Statement& s, int c, R& r) { (r.*Outer).*Inner = Codec<T>::read(s, c); }};
}

// "a, b, c", each name prefixed by `qualifier` ("w." gives "w.a, w.b, w.c").
template <typename R>
std::string names(Columns<R> columns, std::string_view qualifier = "") {
  std::string out;
  for (const Column<R>& c : columns) {
    if (!out.empty()) out += ", ";
    out += qualifier;
    out += c.name;
  }
  return out;
}

// "INSERT INTO table (k1, ..., c1, ...) VALUES (:k1, ..., :c1, ...)": the columns the store
// fills itself (`kept`: keys, stamps) first, then the record's.
template <typename R>
std::string insert_sql(std::string_view table, std::span<const std::string_view> kept,
                       Columns<R> columns) {
  std::string list, values;
  auto add = [&](std::string_view name) {
    if (!list.empty()) {
      list += ", ";
      values += ", ";
    }
    list += name;
    values += ":";
    values += name;
  };
  for (std::string_view k : kept) add(k);
  for (const Column<R>& c : columns) add(c.name);
  return "INSERT INTO " + std::string(table) + " (" + list + ") VALUES (" + values + ")";
}

// " ON CONFLICT (k1, ...) DO UPDATE SET c1 = excluded.c1, ...", after an insert_sql: the row
// of the same `key` takes every other column of the record.
template <typename R>
std::string on_conflict_update(std::span<const std::string_view> key, Columns<R> columns) {
  std::string keys, set;
  for (std::string_view k : key) {
    if (!keys.empty()) keys += ", ";
    keys += k;
  }
  for (const Column<R>& c : columns) {
    bool in_key = false;
    for (std::string_view k : key) in_key = in_key || k == c.name;
    if (in_key) continue;
    if (!set.empty()) set += ", ";
    set += std::string(c.name) + " = excluded." + std::string(c.name);
  }
  return " ON CONFLICT (" + keys + ") DO UPDATE SET " + set;
}

// Binds every column of the record to its :name parameter; a statement without one fails at
// step() naming it.
template <typename R>
void bind_record(sqlite::Statement& s, Columns<R> columns, const R& record) {
  for (const Column<R>& c : columns) {
    std::string parameter = ":";
    parameter += c.name;
    c.bind(s, s.parameter(parameter), record);
  }
}

// Reads the record from a row whose columns `first`, `first + 1`, ... are names(columns).
template <typename R>
void read_record(const sqlite::Statement& s, int first, Columns<R> columns, R& record) {
  for (size_t i = 0; i < columns.size(); ++i) {
    columns[i].read(s, first + static_cast<int>(i), record);
  }
}

}  // namespace benchgate::store::columns
