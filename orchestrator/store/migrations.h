// Schema migrations: the files schemas/sqlite/NNNN_name.sql, embedded into the binary at build
// time (embed_migrations.cmake), applied in order; the version lives in PRAGMA user_version.
#pragma once

#include <string_view>
#include <vector>

#include "common/util/expected.h"
#include "orchestrator/store/sqlite.h"

namespace benchgate::store {

struct Migration {
  int version;            // NNNN of the file name
  std::string_view name;  // "0001_initial"
  std::string_view sql;
};

// Every migration of this build, in version order (generated source).
const std::vector<Migration>& embedded_migrations();

// The schema version this build writes (the highest embedded migration).
int latest_schema_version();

// Applies every migration newer than the database's user_version, each in its own transaction
// together with its user_version update. A database newer than this build is an error, never
// downgraded. Returns the version afterwards.
Expected<int> apply_migrations(sqlite::Database& db, const std::vector<Migration>& migrations);

}  // namespace benchgate::store
