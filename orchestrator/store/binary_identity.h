// Which file a binary is (docs/MEASUREMENT.md, "Measured binaries"): its GNU build-id, read from
// the ELF note the linker writes (Debian's toolchain writes one), or, where the file has none,
// a SHA-256 of the whole file. Read by bounded reads of the file itself: a truncated, damaged
// or foreign file gives a clear result, never a crash.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "orchestrator/store/records.h"

namespace benchgate::store {

struct BuildIdRead {
  enum class Status {
    kFound,       // build_id holds the note's bytes as lower-case hex
    kNoNote,      // an ELF file without a GNU build-id note
    kNotElf,      // no ELF header (a script, a text file, an empty file)
    kDamaged,     // an ELF header whose tables or notes lie outside the file or are malformed
    kUnreadable,  // the file could not be opened or read; `why` says so
  };
  Status status = Status::kUnreadable;
  std::string build_id;
  std::string why;  // for kDamaged and kUnreadable
};

// Reads the NT_GNU_BUILD_ID note of the ELF file at `path` (32- or 64-bit, either byte order),
// from its PT_NOTE segments, else from its SHT_NOTE sections. Reads at most a few hundred KiB.
BuildIdRead read_gnu_build_id(const std::string& path);

// SHA-256 (hex) of the file's bytes; empty when it cannot be read.
std::string file_sha256(const std::string& path);

// A MeasuredBinary of the file at `path` (made absolute, symbolic links followed where it
// exists) for `role` and `origin`: its build-id, else its SHA-256, else neither.
MeasuredBinary identify_binary(const std::string& role, const std::string& path,
                               const std::string& origin);

// Whether `origin` names the bundled build (next to the orchestrator, or found on PATH) rather
// than a binary given by --NAME-bin or $BENCHGATE_NAME_BIN.
bool bundled_origin(const std::string& origin);

// "build-id HEX", "sha256 HEX" or "identity not readable".
std::string identity_text(const MeasuredBinary& binary);
// Whether the two are one file by their identities (build-id, else SHA-256); false where either
// has neither.
bool same_identity(const MeasuredBinary& a, const MeasuredBinary& b);

// The line every report writes for it: "router: PATH (build-id HEX, from --router-bin)"; the
// bundled build says "bundled", a command system's program "command", with the command's
// arguments after its path as on its command line: "command new: PATH --http
// '127.0.0.1:${port:new}' --inject-work-ns 3000 (build-id HEX, command)". Arguments over 160
// characters keep their first 80 and last 72, with " ... " between (`--json` has them whole).
std::string binary_line(const MeasuredBinary& binary);

// The binaries as `--json` and `compare --json` write them: role, path, origin, bundled,
// build_id and sha256 (null where not known).
nlohmann::json binaries_json(const std::vector<MeasuredBinary>& binaries);

}  // namespace benchgate::store
