// Which files --db may name: none that keeps nothing, none of another program, and, for the
// read commands, none that holds no store yet. Each refusal leaves the file as it was.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <iterator>

#include "orchestrator/store/database_file.h"
#include "orchestrator/store/sqlite.h"
#include "orchestrator/store/store.h"
#include "store_test_support.h"

namespace benchgate::store {
namespace {

using testing::TempDir;

bool mentions(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A database of another program: SQLite, with its own tables, in rollback-journal mode.
void write_foreign_database(const std::string& path, const char* sql) {
  auto db = sqlite::Database::open(path);
  ASSERT_TRUE(db.ok()) << db.message();
  ASSERT_TRUE((*db)->exec(sql).ok());
}

TEST(DatabaseFile, ANameThatKeepsNothingIsRefusedNamingTheFlagAndValue) {
  for (const std::string name : {"", ":memory:", "file:bench.db?mode=memory&cache=shared"}) {
    auto store = Store::open(name);
    ASSERT_FALSE(store.ok()) << "'" << name << "' was opened";
    EXPECT_EQ(store.error().kind, ErrorKind::kInvalidInput) << store.message();
    EXPECT_TRUE(mentions(store.message(), "--db '" + name + "'")) << store.message();
    EXPECT_TRUE(mentions(store.message(), "keeps nothing")) << store.message();
  }
}

TEST(DatabaseFile, AFileNamedFileColonSomethingIsOpenedByItsPath) {
  TempDir dir;
  const std::string path = dir.file("file:bench.db");
  ASSERT_TRUE(Store::open(path).ok()) << "an absolute path is no URI";
  struct stat st {};
  EXPECT_EQ(stat(path.c_str(), &st), 0);
}

TEST(DatabaseFile, AnotherProgramsDatabaseWithATableOfTheSameNameIsRefusedAndLeftUnchanged) {
  TempDir dir;
  const std::string path = dir.file("foreign.db");
  write_foreign_database(path,
                         "CREATE TABLE runs (id INTEGER PRIMARY KEY, what TEXT);"
                         "INSERT INTO runs (what) VALUES ('theirs');");
  const std::string before = file_bytes(path);
  auto store = Store::open(path);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.error().kind, ErrorKind::kInvalidInput) << store.message();
  EXPECT_TRUE(mentions(store.message(), "'" + path + "' is not a benchgate database"))
      << store.message();
  EXPECT_TRUE(mentions(store.message(), "'runs'")) << store.message();
  EXPECT_TRUE(mentions(store.message(), "left unchanged")) << store.message();
  EXPECT_EQ(file_bytes(path), before);
}

TEST(DatabaseFile, AnotherProgramsDatabaseIsNotMigratedBesideItsTables) {
  TempDir dir;
  const std::string path = dir.file("notes.db");
  write_foreign_database(path, "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT);");
  const std::string before = file_bytes(path);
  auto store = Store::open(path);
  ASSERT_FALSE(store.ok());
  EXPECT_TRUE(mentions(store.message(), "'notes'")) << store.message();
  EXPECT_EQ(file_bytes(path), before);
}

TEST(DatabaseFile, ASchemaVersionWithoutBenchgatesTablesIsAnotherProgramsDatabase) {
  TempDir dir;
  const std::string path = dir.file("versioned.db");
  write_foreign_database(path, "CREATE TABLE notes (id INTEGER); PRAGMA user_version = 3;");
  const std::string before = file_bytes(path);
  auto store = Store::open(path);
  ASSERT_FALSE(store.ok());
  EXPECT_TRUE(mentions(store.message(), "not a benchgate database")) << store.message();
  EXPECT_EQ(file_bytes(path), before);
}

// A version newer than this build does not make a database benchgate's: without the store's
// tables it is another program's, refused before Store::open switches it to WAL mode.
TEST(DatabaseFile, AVersionNewerThanThisBuildWithoutBenchgatesTablesIsLeftUnchanged) {
  TempDir dir;
  const std::string path = dir.file("high_version.db");
  write_foreign_database(path, "CREATE TABLE notes (id INTEGER); PRAGMA user_version = 42;");
  const std::string before = file_bytes(path);
  auto held = check_holds_a_store(path, 100);
  ASSERT_FALSE(held.ok());
  EXPECT_TRUE(mentions(held.message(), "holding 'notes', without benchgate's schema"))
      << held.message();
  auto store = Store::open(path);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.error().kind, ErrorKind::kInvalidInput) << store.message();
  EXPECT_TRUE(mentions(store.message(), "'" + path + "' is not a benchgate database"))
      << store.message();
  EXPECT_FALSE(mentions(store.message(), "newer than this benchgate")) << store.message();
  EXPECT_EQ(file_bytes(path), before) << "the journal mode stays rollback, not WAL";
}

TEST(DatabaseFile, AnEmptyFileBecomesAStoreWhenOpenedToWrite) {
  TempDir dir;
  const std::string path = dir.file("empty.db");
  std::ofstream(path).close();
  auto store = Store::open(path);
  ASSERT_TRUE(store.ok()) << store.message();
  EXPECT_TRUE((*store)->begin_run(testing::test_run_info()).ok());
}

TEST(DatabaseFile, AnEmptyFileHoldsNoStoreAndStaysEmpty) {
  TempDir dir;
  const std::string path = dir.file("zero.db");
  std::ofstream(path).close();
  auto held = check_holds_a_store(path, 100);
  ASSERT_FALSE(held.ok());
  EXPECT_EQ(held.error().kind, ErrorKind::kInvalidInput);
  EXPECT_TRUE(mentions(held.message(), "'" + path + "' is not a benchgate database"))
      << held.message();
  EXPECT_EQ(file_bytes(path), "");
}

TEST(DatabaseFile, ASqliteDatabaseWithoutATableHoldsNoStore) {
  TempDir dir;
  const std::string path = dir.file("blank.db");
  write_foreign_database(path, "CREATE TABLE t (x INTEGER); DROP TABLE t;");
  auto held = check_holds_a_store(path, 100);
  ASSERT_FALSE(held.ok());
  EXPECT_TRUE(mentions(held.message(), "holds nothing")) << held.message();
}

TEST(DatabaseFile, AStoreAndAnotherProgramsDatabaseAreToldApart) {
  TempDir dir;
  const std::string ours = dir.file("bench.db");
  { ASSERT_TRUE(Store::open(ours).ok()); }
  EXPECT_TRUE(check_holds_a_store(ours, 100).ok());
  const std::string theirs = dir.file("theirs.db");
  write_foreign_database(theirs, "CREATE TABLE runs (id INTEGER);");
  auto held = check_holds_a_store(theirs, 100);
  ASSERT_FALSE(held.ok());
  EXPECT_TRUE(mentions(held.message(), "left unchanged")) << held.message();
}

}  // namespace
}  // namespace benchgate::store
