// The addresses benchgate connects to (`run --server`, `--workers-at`, [workers] at, [router]
// address and ready): one rule for all of them, so that a form one place takes is not refused
// by another, and one wording for the error, after the caller's flag or key.
#pragma once

#include <string_view>

#include "common/util/expected.h"

namespace benchgate::scenario {

// The forms a caller takes besides HOST:PORT: those it can connect to.
struct DialForms {
  // dns:NAME:PORT: gRPC resolves it (`run --server`); worker discovery takes every address
  // NAME resolves to (`--workers-at`, [workers] at).
  bool dns_name = false;
  // unix:PATH: a gRPC endpoint on this machine (`serve --listen unix:PATH`, a worker's).
  bool unix_path = false;
};

// HOST:PORT with a port of 1 to 65535, HOST a name, an IPv4 address or a bracketed IPv6
// address ("[::1]:7700"), and the forms of `forms`. Anything else is an error that begins with
// `what` (the flag, "--server", or the key, "key 'at' in [workers]:"), shows the value escaped
// (shown_text), says what is wrong with it and lists the forms `forms` takes:
//   --server '127.0.0.1' is not an address to connect to: it has no :PORT; expected
//   HOST:PORT with a port of 1 to 65535 ("127.0.0.1:7700", "[::1]:7700"), dns:NAME:PORT or
//   unix:PATH
// gRPC would dial a host without a port at a port of its own choosing, and say only that the
// connection failed.
Expected<void> check_dial_address(std::string_view what, std::string_view address, DialForms forms);

// A worker's address (`--workers-at`, [workers] at): HOST:PORT, dns:NAME:PORT (every address
// NAME resolves to) or unix:PATH (a worker on this machine, `worker --listen unix:PATH`).
inline constexpr DialForms kWorkerForms{.dns_name = true, .unix_path = true};

}  // namespace benchgate::scenario
