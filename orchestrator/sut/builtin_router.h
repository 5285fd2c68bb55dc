// The bundled router as the system under test: spawned from its binary, ready when it has
// printed its READY line and its control endpoint answers, measured through RouterControl.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "orchestrator/processes/child_process.h"
#include "orchestrator/scenario/dial_address.h"
#include "orchestrator/sut/router_control_client.h"
#include "orchestrator/sut/system_under_test.h"

namespace benchgate::sut {

class BuiltinRouter : public SystemUnderTest {
 public:
  BuiltinRouter(const scenario::RouterConfig& config, const SutContext& context);
  ~BuiltinRouter() override;

  Expected<void> start(std::chrono::steady_clock::time_point deadline) override;
  std::string address() const override { return http_address_; }
  // From the READY line's ws= / rawsocket= fields.
  Expected<std::string> wamp_address(const std::string& transport) const override;
  std::optional<Error> failure() override;
  std::optional<Error> exited() override;
  std::string stopped_since_last_call() override;
  Expected<void> begin_window() override;
  Expected<std::optional<MetricsSnapshot>> snapshot() override;
  void stop() override;
  std::string description() const override;
  std::string ca_pem() const override { return ca_pem_; }

 private:
  scenario::RouterConfig config_;
  SutContext context_;
  std::unique_ptr<processes::ChildProcess> process_;
  std::unique_ptr<RouterControlClient> control_;
  std::string http_address_;
  std::map<std::string, std::string> ready_fields_;
  std::string ca_pem_;  // the run's CA, with [router] tls = true and no tls_cert
};

// Parses "READY http=127.0.0.1:1234 control=127.0.0.1:5678" into its key=value fields.
std::map<std::string, std::string> parse_ready_line(const std::string& line);
// Empty when `line` has a KEY= field for every one of `required`, each an address to connect
// to (scenario::check_dial_address: HOST:PORT, and the forms of `forms`); else the error that
// `who` printed it, which quotes the line (escaped, cut after 200 bytes: shown_cut) and says what
// was expected:
// "worker 0 printed an unexpected READY line 'READY 127.0.0.1:36877': expected 'READY
// grpc=HOST:PORT' (no grpc=)", or what is wrong with a field: "... 'READY grpc=127.0.0.1:1x':
// grpc= '127.0.0.1:1x' is not an address to connect to: its port '1x' is not a number ...".
// `run` and worker-check read a worker's READY line by this one rule.
std::string check_ready_line(const std::string& who, const std::string& line,
                             const std::vector<std::string>& required,
                             scenario::DialForms forms = {});
// A worker may listen on unix:PATH (`worker --listen unix:PATH`) and say so in its READY line.
inline constexpr scenario::DialForms kWorkerReadyForms{.unix_path = true};

}  // namespace benchgate::sut
