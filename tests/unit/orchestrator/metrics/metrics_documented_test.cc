// Every series family the orchestrator's /metrics serves is in README's metrics table: the
// families a run registers (MetricsObserver's, what `run --metrics-listen` and `serve` serve),
// and nothing else: prometheus-cpp's Exposer added its own exposer_* families, served and
// documented nowhere at first; the orchestrator's own listener serves the registry alone.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <prometheus/registry.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>

#include "orchestrator/metrics/exposition.h"
#include "orchestrator/metrics/metrics_observer.h"

namespace benchgate::metrics {
namespace {

// One GET of http://127.0.0.1:PORT/metrics; the whole answer, headers and all.
std::string scrape(uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return "";
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(port);
  std::string answer;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
    const std::string request =
        "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    (void)::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
    timeval timeout{10, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    char buffer[4096];
    for (ssize_t n; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;) answer.append(buffer, n);
  }
  ::close(fd);
  return answer;
}

// README's metrics table alone (the lines from its header to the blank line after it): a
// family named elsewhere in README, in prose or an example, is not documented in the table.
std::string readme_metrics_table() {
  std::ifstream file(std::filesystem::path(BENCHGATE_SOURCE_DIR) / "README.md");
  std::stringstream readme;
  readme << file.rdbuf();
  const std::string text = readme.str();
  const size_t begin = text.find("\n| metric | labels | what |\n");
  if (begin == std::string::npos) return "";
  const size_t end = text.find("\n\n", begin + 1);
  return text.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

TEST(MetricsDocumented, EveryFamilyTheEndpointServesIsInTheReadmesTable) {
  MetricsObserver observer;  // the registry a run and serve fill, with every family it has
  std::set<std::string> families;
  for (const std::string& name : observer.family_names()) families.insert(name);
  const size_t registered = families.size();
  auto endpoint = MetricsEndpoint::start("127.0.0.1:0", observer.registry());
  ASSERT_TRUE(endpoint) << endpoint.message();
  const std::string answer = scrape((*endpoint)->port());
  std::istringstream lines(answer);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("# TYPE ", 0) == 0) families.insert(line.substr(7, line.find(' ', 7) - 7));
  }
  EXPECT_GT(registered, 20u);                        // the observer's own, not only the library's
  EXPECT_EQ(families.size(), registered) << answer;  // no family of the listener's own
  const std::string table = readme_metrics_table();
  ASSERT_FALSE(table.empty()) << "README has no '| metric | labels | what |' table";
  for (const std::string& family : families) {
    EXPECT_NE(table.find("`" + family + "`"), std::string::npos)
        << family << " is served on /metrics and not in README's metrics table";
  }
}

}  // namespace
}  // namespace benchgate::metrics
