// Workers found by name: a `--workers-at` entry `dns:NAME:PORT` stands for every address NAME
// resolves to (a Kubernetes headless Service answers with one address per ready pod), and the
// connecting pool waits, up to its deadline, until as many workers as the scenario needs answer
// Describe, resolving the names again on every round so that a worker that starts late is
// found. Plain `HOST:PORT` and `unix:PATH` entries are taken as they are.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/util/expected.h"

namespace benchgate::workers {

inline constexpr std::string_view kDnsPrefix = "dns:";

// Every address a host name resolves to, as text ("10.0.0.7", "fd00::7"); an error names it.
using Resolver = std::function<Expected<std::vector<std::string>>(const std::string& name)>;

// getaddrinfo over TCP, IPv4 and IPv6, in the order it answers.
Resolver system_resolver();

bool is_dns_entry(std::string_view entry);

// Each entry is a worker's address, HOST:PORT, dns:NAME:PORT or unix:PATH with a port of 1 to
// 65535 (scenario::check_dial_address with kWorkerForms, as [workers] at is checked); an error
// names the first that is not (checked before anything starts: run, serve and calibrate exit 2
// on it).
Expected<void> check_worker_entries(const std::vector<std::string>& entries);

// The entries with each `dns:NAME:PORT` replaced by ADDRESS:PORT for every address NAME
// resolves to ([v6]:PORT for IPv6), each address once, in order. An entry that is not
// `dns:NAME:PORT` with a port of 1..65535, or a name that does not resolve, is an error naming
// the entry.
Expected<std::vector<std::string>> expand_worker_addresses(const std::vector<std::string>& entries,
                                                           const Resolver& resolve);

// A probe's outcome: success when the worker at the address answered Describe by the deadline
// given; otherwise why not (the last such reason ends the wait's error), and whether that is
// `final`, an answer asking again cannot change (a worker that refused the token, or one that
// serves no Describe), decided by the caller from the answer's status code.
struct ProbeAnswer {
  ProbeAnswer(Expected<void> answered_, bool final_ = false)  // NOLINT: a plain Expected<void>
      : answered(std::move(answered_)), final(final_) {}
  Expected<void> answered;
  bool final = false;
};
using Prober = std::function<ProbeAnswer(const std::string& address,
                                         std::chrono::steady_clock::time_point deadline)>;

// The first `count` addresses (in the order expand_worker_addresses gives them) whose worker
// answered, waiting until `deadline`: each round resolves the entries again and probes the
// addresses not yet answered, each probe with a short deadline of its own. At the deadline, an
// error saying how many answered of how many addresses the entries gave, and which did not.
// A final probe error ends the wait at once with it.
Expected<std::vector<std::string>> wait_for_workers(const std::vector<std::string>& entries,
                                                    size_t count,
                                                    std::chrono::steady_clock::time_point deadline,
                                                    const Resolver& resolve, const Prober& probe);

}  // namespace benchgate::workers
