// One Run stream in adapter mode: the domain side (no gRPC). start() checks that the target
// accepts a TCP connection (the tool keeps none between windows, so Ready means "reachable")
// and writes wrk's summary script to a private temporary file; run_window() waits for the
// window's start instant, runs the tool for the window's length (a fresh run, so connection
// setup falls inside every window), and translates its output. Figures the tool does not
// give are listed in WindowResult.not_measured, never filled with a guess.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "common/util/expected.h"
#include "worker/adapters/tool.h"
#include "worker/engine/window_result.h"
#include "worker/engine/workload.h"

namespace benchgate::worker::adapters {

class ToolSession {
 public:
  using CancelledFn = std::function<bool()>;

  // `spec` must have passed validate_workload and check_workload.
  static Expected<std::unique_ptr<ToolSession>> start(const Tool& tool, const WorkloadSpec& spec);
  ~ToolSession();
  ToolSession(const ToolSession&) = delete;
  ToolSession& operator=(const ToolSession&) = delete;

  uint32_t connections() const { return spec_.connections; }
  uint32_t threads() const;

  // Blocks for the window. `cancelled` is polled while waiting and while the tool runs; when
  // it turns true the tool is killed and an error returned. A tool that fails or prints
  // something unreadable is an error quoting its last stderr line.
  Expected<WindowResult> run_window(const WindowCommand& window, const CancelledFn& cancelled);

  // The fields every window of this session leaves unmeasured.
  std::vector<std::string> not_measured() const;

 private:
  ToolSession(Tool tool, WorkloadSpec spec) : tool_(std::move(tool)), spec_(std::move(spec)) {}

  Tool tool_;
  WorkloadSpec spec_;
  std::string script_path_;  // wrk only; removed by the destructor
};

// Connects to "HOST:PORT" once and closes again, within timeout_ns. The error names the
// address and the reason.
Expected<void> probe_address(const std::string& address, int64_t timeout_ns);

}  // namespace benchgate::worker::adapters
