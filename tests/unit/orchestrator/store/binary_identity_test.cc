// Which file a binary is (binary_identity.h): the GNU build-id of a real ELF file of the build
// (this test's own executable), ELF files made here byte by byte (32 and 64 bit, either byte
// order, with and without the note), and files that are no ELF or are cut short, which give a
// clear result and never a crash.
#include "orchestrator/store/binary_identity.h"

#include "common/util/shell_words.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "orchestrator/store/sha256.h"
#include "store_test_support.h"

namespace benchgate::store {
namespace {

using Status = BuildIdRead::Status;
using testing::TempDir;

std::string self_path() { return std::filesystem::read_symlink("/proc/self/exe").string(); }

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_all(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Every NT_GNU_BUILD_ID note found by scanning the file's bytes for the note's header (namesz 4,
// descsz 20, type 3, "GNU"), little-endian: a reading independent of the ELF tables.
std::vector<std::string> scanned_build_ids(const std::string& bytes) {
  // Made at run time: a literal of these bytes would itself be found in this executable.
  volatile char type = 3;
  std::string header(16, '\0');
  header[0] = 4;
  header[4] = 20;
  header[8] = type;
  header.replace(12, 3, "GNU");
  std::vector<std::string> found;
  for (size_t at = bytes.find(header); at != std::string::npos && at + 36 <= bytes.size();
       at = bytes.find(header, at + 1)) {
    std::string id;
    static constexpr char kHex[] = "0123456789abcdef";
    for (size_t i = 0; i < 20; ++i) {
      const auto byte = static_cast<unsigned char>(bytes[at + 16 + i]);
      id.push_back(kHex[byte >> 4]);
      id.push_back(kHex[byte & 0xf]);
    }
    found.push_back(id);
  }
  return found;
}

// A minimal ELF file: the header, one program header (PT_NOTE over `notes`, or PT_LOAD when
// `note_segment` is false) and the notes.
std::string make_elf(bool is64, bool big_endian, const std::string& notes,
                     bool note_segment = true) {
  std::string out;
  auto put = [&](uint64_t v, int width) {
    for (int i = 0; i < width; ++i) {
      const int shift = big_endian ? (width - 1 - i) * 8 : i * 8;
      out.push_back(static_cast<char>((v >> shift) & 0xff));
    }
  };
  const int word = is64 ? 8 : 4;
  const uint64_t ehsize = is64 ? 64 : 52;
  const uint64_t phentsize = is64 ? 56 : 32;
  const uint64_t notes_at = ehsize + phentsize;
  out +=
      "\x7f"
      "ELF";
  out.push_back(is64 ? 2 : 1);
  out.push_back(big_endian ? 2 : 1);
  out.push_back(1);
  out.append(9, '\0');
  put(2, 2);               // e_type: ET_EXEC
  put(is64 ? 62 : 3, 2);   // e_machine
  put(1, 4);               // e_version
  put(0, word);            // e_entry
  put(ehsize, word);       // e_phoff
  put(0, word);            // e_shoff
  put(0, 4);               // e_flags
  put(ehsize, 2);          // e_ehsize
  put(phentsize, 2);       // e_phentsize
  put(1, 2);               // e_phnum
  put(is64 ? 64 : 40, 2);  // e_shentsize
  put(0, 2);               // e_shnum
  put(0, 2);               // e_shstrndx
  const uint32_t type = note_segment ? 4 : 1;
  if (is64) {
    put(type, 4), put(4, 4), put(notes_at, 8), put(0, 8), put(0, 8), put(notes.size(), 8),
        put(notes.size(), 8), put(4, 8);
  } else {
    put(type, 4), put(notes_at, 4), put(0, 4), put(0, 4), put(notes.size(), 4),
        put(notes.size(), 4), put(4, 4), put(4, 4);
  }
  return out + notes;
}

// One note: namesz, descsz, type, the name and the description, each padded to 4.
std::string note(bool big_endian, uint32_t type, const std::string& name, const std::string& desc) {
  std::string out;
  auto put = [&](uint32_t v) {
    for (int i = 0; i < 4; ++i) {
      const int shift = big_endian ? (3 - i) * 8 : i * 8;
      out.push_back(static_cast<char>((v >> shift) & 0xff));
    }
  };
  put(static_cast<uint32_t>(name.size()));
  put(static_cast<uint32_t>(desc.size()));
  put(type);
  out += name;
  out.append((4 - name.size() % 4) % 4, '\0');
  out += desc;
  out.append((4 - desc.size() % 4) % 4, '\0');
  return out;
}

const std::string kGnu("GNU\0", 4);
const std::string kId("\x01\x23\x45\x67\x89\xab\xcd\xef\x10\x32", 10);

TEST(BuildId, TheBuildsOwnExecutableHasTheBuildIdItsNoteHolds) {
  const BuildIdRead read = read_gnu_build_id(self_path());
  ASSERT_EQ(read.status, Status::kFound) << read.why;
  const std::vector<std::string> scanned = scanned_build_ids(read_all(self_path()));
  ASSERT_EQ(scanned.size(), 1u);
  EXPECT_EQ(read.build_id, scanned.front());
}

TEST(BuildId, EveryClassAndByteOrderIsRead) {
  TempDir dir;
  for (bool is64 : {false, true}) {
    for (bool big : {false, true}) {
      // A note of another type first: only the GNU build-id is taken.
      const std::string notes = note(big, 1, kGnu, std::string(16, '\0')) + note(big, 3, kGnu, kId);
      const std::string path = dir.file("elf");
      write_all(path, make_elf(is64, big, notes));
      const BuildIdRead read = read_gnu_build_id(path);
      ASSERT_EQ(read.status, Status::kFound) << is64 << big << " " << read.why;
      EXPECT_EQ(read.build_id, "0123456789abcdef1032");
    }
  }
}

TEST(BuildId, AnElfFileWithoutTheNoteHasNone) {
  TempDir dir;
  const std::string path = dir.file("elf");
  // Notes, none of them a GNU build-id (another type; type 3 of another owner).
  write_all(path, make_elf(true, false, note(false, 1, kGnu, kId) + note(false, 3, "Go\0\0", kId)));
  EXPECT_EQ(read_gnu_build_id(path).status, Status::kNoNote);
  // No note segment and no sections at all.
  write_all(path, make_elf(true, false, note(false, 3, kGnu, kId), false));
  EXPECT_EQ(read_gnu_build_id(path).status, Status::kNoNote);
}

TEST(BuildId, FilesThatAreNoElfOrAreCutShortGiveAClearResult) {
  TempDir dir;
  const std::string script = dir.file("script");
  write_all(script, "#!/bin/sh\nexec true\n");
  EXPECT_EQ(read_gnu_build_id(script).status, Status::kNotElf);
  const std::string empty = dir.file("empty");
  write_all(empty, "");
  EXPECT_EQ(read_gnu_build_id(empty).status, Status::kNotElf);
  const BuildIdRead missing = read_gnu_build_id(dir.file("missing"));
  EXPECT_EQ(missing.status, Status::kUnreadable);
  EXPECT_FALSE(missing.why.empty());
  EXPECT_EQ(read_gnu_build_id(dir.file("")).status, Status::kUnreadable);  // the folder

  // The build's own executable cut after its header: its tables lie past the end.
  const std::string self = read_all(self_path());
  const std::string cut = dir.file("cut");
  write_all(cut, self.substr(0, 200));
  const BuildIdRead read = read_gnu_build_id(cut);
  EXPECT_EQ(read.status, Status::kDamaged);
  EXPECT_FALSE(read.why.empty());
  // Cut inside the header itself.
  write_all(cut, self.substr(0, 40));
  EXPECT_EQ(read_gnu_build_id(cut).status, Status::kDamaged);
  // A note whose sizes run past its segment.
  std::string bad = note(false, 3, kGnu, kId);
  bad[4] = '\x7f';  // descsz 127
  write_all(cut, make_elf(false, false, bad));
  EXPECT_EQ(read_gnu_build_id(cut).status, Status::kDamaged);
}

TEST(BuildId, DamagedTablesNeverCrash) {
  TempDir dir;
  const std::string path = dir.file("fuzzed");
  const std::string good = make_elf(true, false, note(false, 3, kGnu, kId));
  std::mt19937 random(12345);
  for (int i = 0; i < 2000; ++i) {
    std::string bytes = good;
    // Some bytes past the identification changed, sometimes the file cut short.
    for (int k = 0; k < 4; ++k) {
      bytes[16 + random() % (bytes.size() - 16)] = static_cast<char>(random() & 0xff);
    }
    if (random() % 4 == 0) bytes.resize(random() % bytes.size());
    write_all(path, bytes);
    const BuildIdRead read = read_gnu_build_id(path);
    if (read.status == Status::kFound) {
      EXPECT_FALSE(read.build_id.empty());
      EXPECT_LE(read.build_id.size(), 128u);
    }
  }
}

TEST(BinaryIdentity, AFileWithoutABuildIdIsKnownByItsSha256) {
  TempDir dir;
  const std::string script = dir.file("system.sh");
  write_all(script, "#!/bin/sh\nexec true\n");
  const MeasuredBinary b = identify_binary("command", script, "command");
  EXPECT_EQ(b.role, "command");
  EXPECT_EQ(b.origin, "command");
  EXPECT_FALSE(b.build_id.has_value());
  ASSERT_TRUE(b.sha256.has_value());
  EXPECT_EQ(*b.sha256, sha256_hex("#!/bin/sh\nexec true\n"));
  EXPECT_EQ(binary_line(b), "command: " + b.path + " (sha256 " + *b.sha256 + ", command)");
}

TEST(BinaryIdentity, AnElfWithABuildIdIsKnownByItAndItsPathIsResolved) {
  TempDir dir;
  const std::string link = dir.file("router");
  std::filesystem::create_symlink(self_path(), link);
  const MeasuredBinary b = identify_binary("router", link, "--router-bin");
  EXPECT_EQ(b.path, std::filesystem::canonical(self_path()).string());
  ASSERT_TRUE(b.build_id.has_value());
  EXPECT_EQ(*b.build_id, read_gnu_build_id(self_path()).build_id);
  EXPECT_FALSE(b.sha256.has_value());
  EXPECT_EQ(binary_line(b),
            "router: " + b.path + " (build-id " + *b.build_id + ", from --router-bin)");
  const MeasuredBinary bundled = identify_binary("router", self_path(), "next to the orchestrator");
  EXPECT_TRUE(same_identity(b, bundled));
  EXPECT_NE(binary_line(bundled).find(", bundled)"), std::string::npos);
}

TEST(BinaryIdentity, AFileThatCannotBeReadHasNoIdentity) {
  TempDir dir;
  const MeasuredBinary b = identify_binary("worker", dir.file("gone"), "--worker-bin");
  EXPECT_FALSE(b.build_id.has_value());
  EXPECT_FALSE(b.sha256.has_value());
  EXPECT_EQ(identity_text(b), "identity not readable");
  EXPECT_FALSE(same_identity(b, b));
}

TEST(BinaryIdentity, OnlyTheBundledBuildsOriginsAreBundled) {
  EXPECT_TRUE(bundled_origin("next to the orchestrator"));
  EXPECT_TRUE(bundled_origin("PATH"));
  EXPECT_FALSE(bundled_origin("--router-bin"));
  EXPECT_FALSE(bundled_origin("$BENCHGATE_ROUTER_BIN"));
  EXPECT_FALSE(bundled_origin("command"));
}

// Two variants of one program differ in their arguments only: the line every report lists a
// command's binary with shows them, quoted as a shell would read them, a long list shortened
// in its middle; --json has them whole.
TEST(BinaryIdentity, ACommandsLineShowsItsArgumentsQuotedAsAShellReadsThem) {
  EXPECT_EQ(
      shell_words({"--http", "127.0.0.1:${port:new}", "--inject-work-ns", "3000", "", "it's"}),
      "--http '127.0.0.1:${port:new}' --inject-work-ns 3000 '' 'it'\\''s'");
  MeasuredBinary b{"command new", "/opt/router", "command", "00ff", std::nullopt};
  b.arguments = "--inject-work-ns 3000";
  EXPECT_EQ(binary_line(b),
            "command new: /opt/router --inject-work-ns 3000 (build-id 00ff, command)");
  b.arguments = "";
  EXPECT_EQ(binary_line(b), "command new: /opt/router (build-id 00ff, command)");
  b.arguments = std::string(100, 'a') + " " + std::string(100, 'b');
  EXPECT_EQ(binary_line(b), "command new: /opt/router " + std::string(80, 'a') + " ... " +
                                std::string(72, 'b') + " (build-id 00ff, command)");
  EXPECT_EQ(binaries_json({b})[0]["arguments"], *b.arguments);
  b.arguments = std::nullopt;  // a router or worker, or a run stored before schema version 20
  EXPECT_TRUE(binaries_json({b})[0]["arguments"].is_null());
}

}  // namespace
}  // namespace benchgate::store
