// See discovery.h.
#include "orchestrator/workers/discovery.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <thread>

#include "common/net/host_port.h"
#include "orchestrator/app/interrupt.h"
#include "orchestrator/scenario/dial_address.h"

namespace benchgate::workers {
namespace {

using namespace std::chrono_literals;

// How long one probe of one address may take before the round moves on; a worker that is not
// up yet must not hold up the others (nor the next resolution).
constexpr auto kProbeSlice = 1s;
constexpr auto kRoundPause = 100ms;

std::string join(const std::vector<std::string>& items) {
  std::string text;
  for (const auto& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

}  // namespace

Resolver system_resolver() {
  return [](const std::string& name) -> Expected<std::vector<std::string>> {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* list = nullptr;
    const int rc = ::getaddrinfo(name.c_str(), nullptr, &hints, &list);
    if (rc != 0) return Error{"cannot resolve '" + name + "': " + ::gai_strerror(rc)};
    std::vector<std::string> addresses;
    for (addrinfo* a = list; a != nullptr; a = a->ai_next) {
      char text[INET6_ADDRSTRLEN] = {};
      const void* raw =
          a->ai_family == AF_INET6
              ? static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(a->ai_addr)->sin6_addr)
              : static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(a->ai_addr)->sin_addr);
      if (::inet_ntop(a->ai_family, raw, text, sizeof text) != nullptr) {
        addresses.emplace_back(text);
      }
    }
    ::freeaddrinfo(list);
    return addresses;
  };
}

bool is_dns_entry(std::string_view entry) { return entry.starts_with(kDnsPrefix); }

Expected<void> check_worker_entries(const std::vector<std::string>& entries) {
  for (const auto& entry : entries) {
    if (auto checked = scenario::check_dial_address("--workers-at", entry, scenario::kWorkerForms);
        !checked) {
      return checked.error();
    }
  }
  return {};
}

Expected<std::vector<std::string>> expand_worker_addresses(const std::vector<std::string>& entries,
                                                           const Resolver& resolve) {
  if (auto checked = check_worker_entries(entries); !checked) return checked.error();
  std::vector<std::string> out;
  auto add = [&out](std::string address) {
    if (std::find(out.begin(), out.end(), address) == out.end()) out.push_back(std::move(address));
  };
  for (const auto& entry : entries) {
    if (!is_dns_entry(entry)) {
      add(entry);
      continue;
    }
    // NAME:PORT, checked above by the parser every benchgate address is read by.
    const net::HostPortSplit name_port =
        net::split_host_port(std::string_view(entry).substr(kDnsPrefix.size()), net::kDialMinPort);
    auto resolved = resolve(name_port.host);
    if (!resolved) return Error{"--workers-at '" + entry + "': " + resolved.message()};
    for (const auto& address : *resolved) add(net::join_host_port(address, name_port.port));
  }
  return out;
}

Expected<std::vector<std::string>> wait_for_workers(const std::vector<std::string>& entries,
                                                    size_t count,
                                                    std::chrono::steady_clock::time_point deadline,
                                                    const Resolver& resolve, const Prober& probe) {
  // A malformed entry never becomes well-formed: no point waiting for it.
  if (auto checked = check_worker_entries(entries); !checked) return checked.error();
  std::vector<std::string> answered;
  std::vector<std::string> last_addresses;
  std::string last_error;
  std::string last_probe_error;
  do {
    auto addresses = expand_worker_addresses(entries, resolve);
    if (addresses) {
      last_addresses = *addresses;
      last_error.clear();
      for (const auto& address : *addresses) {
        if (answered.size() == count) break;
        if (std::find(answered.begin(), answered.end(), address) != answered.end()) continue;
        const auto slice = std::min(deadline, std::chrono::steady_clock::now() + kProbeSlice);
        ProbeAnswer answer = probe(address, slice);
        if (answer.answered) {
          answered.push_back(address);
        } else if (answer.final) {
          return answer.answered.error();
        } else {
          last_probe_error = answer.answered.message();
        }
      }
    } else {
      last_error = addresses.message();  // a name not (yet) resolvable: try again next round
    }
    if (answered.size() >= count) return answered;
    if (app::interrupted())
      return Error{"interrupted while waiting for workers", ErrorKind::kInterrupted};
    std::this_thread::sleep_for(kRoundPause);
  } while (std::chrono::steady_clock::now() < deadline);
  std::vector<std::string> silent;
  for (const auto& address : last_addresses) {
    if (std::find(answered.begin(), answered.end(), address) == answered.end()) {
      silent.push_back(address);
    }
  }
  std::string why = "the scenario needs " + std::to_string(count) + " workers but only " +
                    std::to_string(answered.size()) + " answered Describe by the deadline, of " +
                    std::to_string(last_addresses.size()) + " addresses " + join(entries) + " gave";
  if (!last_addresses.empty()) why += " (" + join(last_addresses) + ")";
  if (!silent.empty()) why += "; not answering: " + join(silent);
  if (!last_error.empty()) why += "; last: " + last_error;
  if (last_error.empty() && !last_probe_error.empty()) why += "; last: " + last_probe_error;
  return Error{why};
}

}  // namespace benchgate::workers
