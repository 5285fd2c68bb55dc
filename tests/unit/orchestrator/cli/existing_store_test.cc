// The read commands' --db: never created, never written into when it holds no store, and
// refused with a message naming the path when it cannot be a store.
#include "orchestrator/cli/existing_store.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "store_test_support.h"

namespace benchgate::cli {
namespace {

using store::testing::TempDir;

bool says(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(ExistingStore, AnEmptyFileIsNotADatabaseAndStaysEmpty) {
  TempDir dir;
  const std::string path = dir.file("zero.db");
  std::ofstream(path).close();
  auto store = open_existing_store(path, "1s");
  ASSERT_FALSE(store.ok()) << "a read command wrote a schema into an empty file";
  EXPECT_TRUE(says(store.message(), "'" + path + "' is not a benchgate database"))
      << store.message();
  EXPECT_EQ(std::filesystem::file_size(path), 0u);
}

TEST(ExistingStore, AMissingFileIsNotCreated) {
  TempDir dir;
  const std::string path = dir.file("missing.db");
  auto store = open_existing_store(path, "1s");
  ASSERT_FALSE(store.ok());
  EXPECT_TRUE(says(store.message(), "no database at " + path)) << store.message();
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(ExistingStore, ANameThatKeepsNothingIsRefusedNamingTheFlag) {
  for (const std::string name : {"", ":memory:", "file::memory:"}) {
    auto store = open_existing_store(name, "1s");
    ASSERT_FALSE(store.ok()) << "'" << name << "' was opened";
    EXPECT_TRUE(says(store.message(), "--db '" + name + "'")) << store.message();
  }
}

TEST(ExistingStore, AStoreARunWroteIsOpened) {
  TempDir dir;
  const std::string path = dir.file("bench.db");
  { ASSERT_TRUE(store::Store::open(path).ok()); }
  auto store = open_existing_store(path, "1s");
  EXPECT_TRUE(store.ok()) << store.message();
}

}  // namespace
}  // namespace benchgate::cli
