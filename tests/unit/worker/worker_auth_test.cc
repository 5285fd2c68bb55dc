// A worker started with a token over real gRPC (127.0.0.1, free port): a call without the
// token or with a wrong one is refused UNAUTHENTICATED and logged with the method and the
// peer (never the token); the orchestrator's worker channel (make_worker_channel) carries the
// right one. And the start-up rule: a network address needs a token file unless told not to.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "benchgate/v1/worker.grpc.pb.h"
#include "orchestrator/grpc/channel.h"
#include "worker/service/server.h"

namespace benchgate::worker {
namespace {

namespace fs = std::filesystem;

constexpr const char* kToken = "0123456789abcdef-s3cret";

class WorkerAuthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Warnings land in `log_` instead of stderr.
    previous_ = spdlog::default_logger();
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(log_);
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("auth-test", sink));
    auto started = start_worker_server("127.0.0.1:0", kToken);
    ASSERT_TRUE(started.ok()) << started.message();
    server_ = std::move(*started);
  }
  void TearDown() override {
    if (server_.server) server_.server->Shutdown();
    spdlog::set_default_logger(previous_);
  }

  std::unique_ptr<v1::Worker::Stub> bare_stub() {
    return v1::Worker::NewStub(
        grpc::CreateChannel(server_.address, grpc::InsecureChannelCredentials()));
  }

  grpc::Status describe(v1::Worker::Stub& stub, const char* authorization = nullptr) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    if (authorization) context.AddMetadata("authorization", authorization);
    v1::DescribeResponse response;
    return stub.Describe(&context, {}, &response);
  }

  std::string log() {
    spdlog::default_logger()->flush();
    return log_.str();
  }

  std::ostringstream log_;
  std::shared_ptr<spdlog::logger> previous_;
  WorkerServer server_;
};

TEST_F(WorkerAuthTest, ACallWithoutTheTokenIsRefusedAndLoggedWithItsMethodAndPeer) {
  auto stub = bare_stub();
  const auto status = describe(*stub);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED) << status.error_message();
  EXPECT_NE(status.error_message().find("authorization: Bearer"), std::string::npos);
  const std::string text = log();
  EXPECT_NE(text.find("/benchgate.v1.Worker/Describe"), std::string::npos) << text;
  EXPECT_NE(text.find("127.0.0.1"), std::string::npos) << text;
  EXPECT_NE(text.find("UNAUTHENTICATED"), std::string::npos) << text;
}

TEST_F(WorkerAuthTest, AWrongTokenIsRefusedAndNeitherTokenIsLogged) {
  auto stub = bare_stub();
  const auto status = describe(*stub, "Bearer not-the-token");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  // The right token with a prefix or without the scheme is still wrong.
  EXPECT_EQ(describe(*stub, (std::string("Bearer ") + kToken + "x").c_str()).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(describe(*stub, kToken).error_code(), grpc::StatusCode::UNAUTHENTICATED);
  const std::string text = log();
  EXPECT_NE(text.find("wrong token"), std::string::npos) << text;
  EXPECT_EQ(text.find("not-the-token"), std::string::npos) << text;
  EXPECT_EQ(text.find(kToken), std::string::npos) << text;
  EXPECT_EQ(status.error_message().find(kToken), std::string::npos);
}

TEST_F(WorkerAuthTest, TheRightTokenIsServed) {
  auto stub = bare_stub();
  const auto status = describe(*stub, (std::string("Bearer ") + kToken).c_str());
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(log().find("refused"), std::string::npos);
}

TEST_F(WorkerAuthTest, ARunStreamWithoutTheTokenEndsUnauthenticatedBeforeItsSpecIsRead) {
  auto stub = bare_stub();
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  auto stream = stub->Run(&context);
  v1::RunCommand command;
  command.mutable_spec()->set_name("never");
  stream->Write(command);  // may fail: the worker may already have ended the stream
  stream->WritesDone();
  v1::RunEvent event;
  EXPECT_FALSE(stream->Read(&event));
  const auto status = stream->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED) << status.error_message();
  const std::string text = log();
  EXPECT_NE(text.find("/benchgate.v1.Worker/Run"), std::string::npos) << text;
  EXPECT_EQ(text.find("never"), std::string::npos) << "the spec was read: " << text;
}

TEST_F(WorkerAuthTest, TheOrchestratorsWorkerChannelSendsTheToken) {
  auto with_token = v1::Worker::NewStub(grpcutil::make_worker_channel(server_.address, kToken));
  EXPECT_TRUE(describe(*with_token).ok());
  auto wrong = v1::Worker::NewStub(grpcutil::make_worker_channel(server_.address, "other"));
  EXPECT_EQ(describe(*wrong).error_code(), grpc::StatusCode::UNAUTHENTICATED);
  auto none = v1::Worker::NewStub(grpcutil::make_worker_channel(server_.address, ""));
  EXPECT_EQ(describe(*none).error_code(), grpc::StatusCode::UNAUTHENTICATED);
}

TEST(WorkerTokenRule, ANetworkAddressWithoutATokenFileIsRefusedSayingWhyAndHow) {
  for (const char* listen : {"0.0.0.0:0", "[::]:7000", "10.1.2.3:0", "worker.example.com:0"}) {
    auto token = worker_token(listen, "", false);
    ASSERT_FALSE(token.ok()) << listen;
    EXPECT_NE(token.message().find("--token-file"), std::string::npos) << token.message();
    EXPECT_NE(token.message().find("--insecure-no-token"), std::string::npos);
  }
}

TEST(WorkerTokenRule, LoopbackNeedsNoTokenAndInsecureNoTokenMustBeExplicit) {
  for (const char* listen : {"127.0.0.1:0", "[::1]:0", "localhost:0"}) {
    auto token = worker_token(listen, "", false);
    ASSERT_TRUE(token.ok()) << token.message();
    EXPECT_EQ(*token, "");
  }
  auto insecure = worker_token("0.0.0.0:0", "", true);
  ASSERT_TRUE(insecure.ok());
  EXPECT_EQ(*insecure, "");
}

// A unix:PATH is this machine's and its socket owner-only, as `orchestrator serve`'s, which
// takes no password there: no token needed. "unix" was read as a host name, a network one.
TEST(WorkerTokenRule, AUnixSocketNeedsNoToken) {
  for (const char* listen : {"unix:/run/benchgate/worker.sock", "unix:worker.sock"}) {
    auto token = worker_token(listen, "", false);
    ASSERT_TRUE(token.ok()) << listen << ": " << token.message();
    EXPECT_EQ(*token, "");
  }
}

TEST(WorkerTokenRule, ATokenFileReadableByOthersIsRefusedEvenOnLoopback) {
  std::string dir = (fs::temp_directory_path() / "benchgate-auth-test-XXXXXX").string();
  ASSERT_NE(::mkdtemp(dir.data()), nullptr);
  const std::string path = dir + "/token";
  std::ofstream(path) << "s3cret\n";
  ::chmod(path.c_str(), 0644);
  auto lax = worker_token("127.0.0.1:0", path, false);
  EXPECT_FALSE(lax.ok());
  ::chmod(path.c_str(), 0600);
  auto strict = worker_token("0.0.0.0:0", path, false);
  ASSERT_TRUE(strict.ok()) << strict.message();
  EXPECT_EQ(*strict, "s3cret");
  fs::remove_all(dir);
}

// A worker on a unix:PATH names the address as given (gRPC reports port 1 for a Unix socket,
// which made it "unix:1"), and the socket is its owner's alone whatever the umask, as the
// router's control socket and `orchestrator serve`'s are.
TEST(WorkerServerTest, AUnixSocketIsNamedAsGivenAndOwnerOnly) {
  const fs::path dir =
      fs::temp_directory_path() / ("benchgate-worker-unix-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "worker.sock").string();
  const mode_t umask_before = ::umask(022);
  auto started = start_worker_server("unix:" + path, kToken);
  ::umask(umask_before);
  ASSERT_TRUE(started.ok()) << started.message();
  EXPECT_EQ(started->address, "unix:" + path);
  struct stat status {};
  ASSERT_EQ(::stat(path.c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 0777, 0700u);
  started->server->Shutdown();
  fs::remove_all(dir);
}

// The listen address is split by the rule every benchgate address is (common/net/host_port.h)
// before gRPC sees it: only a ':' was looked for, and gRPC refused "::1:0" as "cannot listen on
// ::1:0: gRPC could not listen there", without the reason.
TEST(WorkerServerTest, AListenAddressIsRefusedByTheCommonRuleWithTheReason) {
  auto v6 = start_worker_server("::1:0", kToken);
  ASSERT_FALSE(v6.ok());
  EXPECT_EQ(v6.message(),
            "--listen '::1:0' is not HOST:PORT or unix:PATH: an IPv6 host is written in brackets, "
            "as in \"[::1]:7700\"");
  for (const char* bad : {"127.0.0.1", ":0", "a b:0", "127.0.0.1:65536", "[x]:0", "unix:"}) {
    EXPECT_FALSE(start_worker_server(bad, kToken).ok()) << bad;
  }
}

// A "unix:" address with no PATH, in either of gRPC's spellings, is refused with the words the
// worker's --listen flag, the router's --control and serve's --listen use
// (net::unix_address_without_path): gRPC would bind it as an abstract socket, which no file
// mode keeps other local users out of. The server had words of its own for "unix:" and let
// "unix://" through to gRPC.
TEST(WorkerServerTest, AUnixAddressWithoutAPathIsRefusedAsTheFlagsRefuseIt) {
  for (const std::string bare : {"unix:", "unix://"}) {
    auto started = start_worker_server(bare, kToken);
    ASSERT_FALSE(started.ok()) << bare;
    EXPECT_EQ(started.message(), "--listen: '" + bare + "' names no PATH after unix:");
  }
}

}  // namespace
}  // namespace benchgate::worker
