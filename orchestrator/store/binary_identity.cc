// See binary_identity.h. The ELF layout read here is the System V ABI's (elf(5)): the header,
// the program and section header tables, and notes (namesz, descsz, type, name, desc, each
// padded to the note's alignment).
#include "orchestrator/store/binary_identity.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

namespace benchgate::store {
namespace {

constexpr uint32_t kPtNote = 4;
constexpr uint32_t kShtNote = 7;
constexpr uint32_t kNtGnuBuildId = 3;
// Bounds on what is read: a table of headers, one note area, all note areas together, and a
// build-id (20 bytes from the linker's SHA-1, 16 from its md5; anything past this is no id).
constexpr uint64_t kMaxTableBytes = 64 * 1024;
constexpr uint64_t kMaxNoteBytes = 64 * 1024;
constexpr uint64_t kMaxNotesTotal = 256 * 1024;
constexpr uint32_t kMaxBuildIdBytes = 64;

std::string hex(const unsigned char* data, size_t size) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(size * 2);
  for (size_t i = 0; i < size; ++i) {
    out.push_back(kHex[data[i] >> 4]);
    out.push_back(kHex[data[i] & 0xf]);
  }
  return out;
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// Reads the file's fields in its byte order, within `bytes` (the caller checked the bounds).
struct Reader {
  bool big_endian = false;
  uint64_t get(const unsigned char* p, int width) const {
    uint64_t v = 0;
    for (int i = 0; i < width; ++i) {
      const int shift = big_endian ? (width - 1 - i) * 8 : i * 8;
      v |= static_cast<uint64_t>(p[i]) << shift;
    }
    return v;
  }
};

// Reads exactly `size` bytes at `offset`; false when the file is shorter or a read fails.
bool read_at(int fd, uint64_t offset, uint64_t size, std::vector<unsigned char>& out) {
  out.assign(size, 0);
  uint64_t done = 0;
  while (done < size) {
    const ssize_t n =
        ::pread(fd, out.data() + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<uint64_t>(n);
  }
  return true;
}

// The GNU build-id among the notes in `area`, each part aligned to `align` (4 or 8) from the
// area's start; nothing when none, and `damaged` set when a note runs past the area.
std::optional<std::string> find_build_id(const std::vector<unsigned char>& area, uint64_t align,
                                         const Reader& r, bool& damaged) {
  const auto pad = [align](uint64_t n) { return (n + align - 1) / align * align; };
  uint64_t at = 0;
  while (at + 12 <= area.size()) {
    const uint64_t namesz = r.get(&area[at], 4);
    const uint64_t descsz = r.get(&area[at + 4], 4);
    const uint64_t type = r.get(&area[at + 8], 4);
    const uint64_t name_at = at + 12;
    // Padded from the area's start: with 8-byte alignment the 12-byte header and a 4-byte name
    // take 16 bytes, not 20.
    const uint64_t desc_at = pad(name_at + namesz);
    const uint64_t next = pad(desc_at + descsz);
    if (desc_at + descsz > area.size() || next < at) {
      damaged = true;
      return std::nullopt;
    }
    if (type == kNtGnuBuildId && namesz == 4 && std::memcmp(&area[name_at], "GNU", 4) == 0) {
      if (descsz == 0 || descsz > kMaxBuildIdBytes) {
        damaged = true;
        return std::nullopt;
      }
      return hex(&area[desc_at], descsz);
    }
    at = next;
  }
  return std::nullopt;
}

}  // namespace

BuildIdRead read_gnu_build_id(const std::string& path) {
  BuildIdRead out;
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0) {
    out.why = std::strerror(errno);
    return out;
  }
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) {
    out.why = std::strerror(errno);
    return out;
  }
  if (!S_ISREG(info.st_mode)) {
    out.why = "not a regular file";
    return out;
  }
  const auto size = static_cast<uint64_t>(info.st_size);
  std::vector<unsigned char> header;
  if (size < 16 || !read_at(fd.get(), 0, 16, header) ||
      std::memcmp(header.data(),
                  "\x7f"
                  "ELF",
                  4) != 0) {
    out.status = BuildIdRead::Status::kNotElf;
    return out;
  }
  auto damaged = [&out](const std::string& why) {
    out.status = BuildIdRead::Status::kDamaged;
    out.why = why;
    return out;
  };
  const unsigned char elf_class = header[4];
  const unsigned char data = header[5];
  if ((elf_class != 1 && elf_class != 2) || (data != 1 && data != 2)) {
    return damaged("unknown ELF class or byte order");
  }
  const bool is64 = elf_class == 2;
  const Reader r{data == 2};
  const uint64_t header_size = is64 ? 64 : 52;
  if (size < header_size || !read_at(fd.get(), 0, header_size, header)) {
    return damaged("the ELF header is cut short");
  }
  const int word = is64 ? 8 : 4;
  const uint64_t phoff = r.get(&header[is64 ? 32 : 28], word);
  const uint64_t shoff = r.get(&header[is64 ? 40 : 32], word);
  const uint64_t phentsize = r.get(&header[is64 ? 54 : 42], 2);
  const uint64_t phnum = r.get(&header[is64 ? 56 : 44], 2);
  const uint64_t shentsize = r.get(&header[is64 ? 58 : 46], 2);
  const uint64_t shnum = r.get(&header[is64 ? 60 : 48], 2);

  // Each note area of one table: (offset, size, alignment).
  struct Area {
    uint64_t offset, size, align;
  };
  // Reads the table at `offset` of `count` entries of `entsize` bytes (at least `needed`), and
  // gives the areas of entries of type `note_type`; an error text where the table is damaged.
  auto areas_of = [&](uint64_t offset, uint64_t count, uint64_t entsize, uint64_t needed,
                      bool segments, std::vector<Area>& areas) -> std::string {
    if (count == 0 || offset == 0) return "";
    if (entsize < needed) return "a header table's entries are too small";
    if (count * entsize > kMaxTableBytes) return "a header table is implausibly large";
    if (offset > size || count * entsize > size - offset) {
      return "a header table lies past the end of the file";
    }
    std::vector<unsigned char> table;
    if (!read_at(fd.get(), offset, count * entsize, table)) return "a header table cannot be read";
    for (uint64_t i = 0; i < count; ++i) {
      const unsigned char* e = &table[i * entsize];
      uint32_t type;
      Area a{};
      if (segments) {
        type = static_cast<uint32_t>(r.get(e, 4));
        a.offset = r.get(e + (is64 ? 8 : 4), word);
        a.size = r.get(e + (is64 ? 32 : 16), word);
        a.align = r.get(e + (is64 ? 48 : 28), word);
      } else {
        type = static_cast<uint32_t>(r.get(e + 4, 4));
        a.offset = r.get(e + (is64 ? 24 : 16), word);
        a.size = r.get(e + (is64 ? 32 : 20), word);
        a.align = r.get(e + (is64 ? 48 : 32), word);
      }
      if (type == (segments ? kPtNote : kShtNote)) areas.push_back(a);
    }
    return "";
  };
  std::vector<Area> areas;
  if (std::string bad = areas_of(phoff, phnum, phentsize, is64 ? 56 : 32, true, areas);
      !bad.empty()) {
    return damaged(bad);
  }
  // A file without note segments (an object file, a stripped program header): its sections.
  if (areas.empty()) {
    if (std::string bad = areas_of(shoff, shnum, shentsize, is64 ? 64 : 40, false, areas);
        !bad.empty()) {
      return damaged(bad);
    }
  }
  uint64_t total = 0;
  for (const Area& a : areas) {
    if (a.size == 0) continue;
    if (a.offset > size || a.size > size - a.offset) {
      return damaged("a note lies past the end of the file");
    }
    if (a.size > kMaxNoteBytes || (total += a.size) > kMaxNotesTotal) {
      return damaged("the notes are implausibly large");
    }
    std::vector<unsigned char> notes;
    if (!read_at(fd.get(), a.offset, a.size, notes)) return damaged("a note cannot be read");
    bool bad = false;
    if (auto id = find_build_id(notes, a.align == 8 ? 8 : 4, r, bad)) {
      out.status = BuildIdRead::Status::kFound;
      out.build_id = std::move(*id);
      return out;
    }
    if (bad) return damaged("a note is malformed");
  }
  out.status = BuildIdRead::Status::kNoNote;
  return out;
}

std::string file_sha256(const std::string& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0) return "";
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) return "";
  std::vector<unsigned char> buffer(64 * 1024);
  while (true) {
    const ssize_t n = ::read(fd.get(), buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return "";
    if (n == 0) break;
    if (EVP_DigestUpdate(ctx.get(), buffer.data(), static_cast<size_t>(n)) != 1) return "";
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(ctx.get(), digest, &length) != 1) return "";
  return hex(digest, length);
}

MeasuredBinary identify_binary(const std::string& role, const std::string& path,
                               const std::string& origin) {
  MeasuredBinary out;
  out.role = role;
  out.origin = origin;
  std::error_code ec;
  auto resolved = std::filesystem::canonical(path, ec);
  if (ec) resolved = std::filesystem::absolute(path, ec);
  out.path = ec ? path : resolved.string();
  BuildIdRead id = read_gnu_build_id(out.path);
  if (id.status == BuildIdRead::Status::kFound) {
    out.build_id = std::move(id.build_id);
  } else if (id.status != BuildIdRead::Status::kUnreadable) {
    if (std::string sum = file_sha256(out.path); !sum.empty()) out.sha256 = std::move(sum);
  }
  return out;
}

bool bundled_origin(const std::string& origin) {
  return origin == "next to the orchestrator" || origin == "PATH";
}

std::string identity_text(const MeasuredBinary& binary) {
  if (binary.build_id) return "build-id " + *binary.build_id;
  if (binary.sha256) return "sha256 " + *binary.sha256;
  return "identity not readable";
}

bool same_identity(const MeasuredBinary& a, const MeasuredBinary& b) {
  if (a.build_id || b.build_id) return a.build_id && b.build_id && *a.build_id == *b.build_id;
  return a.sha256 && b.sha256 && *a.sha256 == *b.sha256;
}

std::string binary_line(const MeasuredBinary& binary) {
  std::string source;
  if (bundled_origin(binary.origin)) {
    source = "bundled";
  } else if (binary.origin == "command") {
    source = "command";
  } else {
    source = "from " + binary.origin;
  }
  // A command's arguments after its program, as on its command line: what tells two variants
  // of one program apart; a long list keeps its start and its end.
  std::string args;
  if (binary.arguments && !binary.arguments->empty()) {
    const std::string& all = *binary.arguments;
    args =
        " " + (all.size() <= 160 ? all : all.substr(0, 80) + " ... " + all.substr(all.size() - 72));
  }
  return binary.role + ": " + binary.path + args + " (" + identity_text(binary) + ", " + source +
         ")";
}

nlohmann::json binaries_json(const std::vector<MeasuredBinary>& binaries) {
  nlohmann::json out = nlohmann::json::array();
  for (const MeasuredBinary& b : binaries) {
    out.push_back(
        {{"role", b.role},
         {"path", b.path},
         {"origin", b.origin},
         {"bundled", bundled_origin(b.origin)},
         {"build_id", b.build_id ? nlohmann::json(*b.build_id) : nlohmann::json(nullptr)},
         {"sha256", b.sha256 ? nlohmann::json(*b.sha256) : nlohmann::json(nullptr)},
         {"arguments", b.arguments ? nlohmann::json(*b.arguments) : nlohmann::json(nullptr)}});
  }
  return out;
}

}  // namespace benchgate::store
