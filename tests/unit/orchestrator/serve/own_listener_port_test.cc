// serve --listen given port 0 listens on the port the kernel chose, known once gRPC listens:
// the service compares a submitted scenario's router with that port (listening_at), and a
// --listen given its port is left as given (a Submit may already read it then).
#include <gtest/gtest.h>

#include <string>

#include "orchestrator/serve/orchestrator_service.h"

namespace benchgate::serve {
namespace {

class NothingRuns final : public JobExecutor {
 public:
  void run(Job& job) override {
    job.update([](JobStatus& s) { s.state = JobState::kFinished; });
  }
  void interrupt() override {}
};

// A client's scenario whose external router is at `address`, checked only (validate_only).
grpc::Status submit_router_at(OrchestratorService& service, const std::string& address) {
  v1::SubmitRequest request;
  request.mutable_content()->set_file_name("client.toml");
  request.mutable_content()->set_text("name = \"s\"\n[router]\nimpl = \"external\"\naddress = \"" +
                                      address +
                                      "\"\n[[workloads]]\nname = \"w\"\nprotocol = \"http1\"\n"
                                      "target = \"/\"\n");
  request.set_validate_only(true);
  v1::SubmitResponse response;
  return service.Submit(nullptr, &request, &response);
}

AdmissionPolicy listening_on(const std::string& listen, const std::string& allowed) {
  AdmissionPolicy policy;
  policy.allowed_addresses = {allowed};
  policy.own_listeners = {{"--listen", listen}, {"--metrics-listen", "127.0.0.1:9464"}};
  return policy;
}

TEST(OwnListenerPort, AListenerOfPort0IsComparedAtThePortItBound) {
  NothingRuns executor;
  JobQueue queue(executor);
  OrchestratorService service(queue, listening_on("127.0.0.1:0", "127.0.0.1:7700"));
  service.listening_at("127.0.0.1:7700");
  const grpc::Status refused = submit_router_at(service, "127.0.0.1:7700");
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(refused.error_message(),
            "client.toml:4:11: error: [router] address '127.0.0.1:7700' is on the port of this "
            "service's own listener (serve --listen 127.0.0.1:7700): a submitted scenario's "
            "router may not listen there, nor its load, probes and scrapes reach the service; "
            "nothing was started\n");
}

TEST(OwnListenerPort, AListenerGivenItsPortKeepsIt) {
  NothingRuns executor;
  JobQueue queue(executor);
  OrchestratorService service(queue, listening_on("127.0.0.1:7701", "127.0.0.1:7701"));
  service.listening_at("127.0.0.1:7702");  // not what it was given: left as given
  const grpc::Status refused = submit_router_at(service, "127.0.0.1:7701");
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_NE(refused.error_message().find("(serve --listen 127.0.0.1:7701)"), std::string::npos)
      << refused.error_message();
}

}  // namespace
}  // namespace benchgate::serve
