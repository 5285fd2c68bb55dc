// Router lifecycle (see router_app.h).
#include "router/app/router_app.h"

#include <csignal>
#include <iostream>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

#include "common/command_line/version.h"
#include "router/app/host_port.h"
#include "router/control/control_server.h"
#include "router/control/control_service.h"
#include "router/http/server.h"
#include "router/prometheus/metrics_endpoint.h"
#include "router/wamp/wamp_server.h"

namespace benchgate::router::app {

int run_router(const RouterConfig& config) {
  // The main thread only waits for a stop request: a signal or a Shutdown call.
  boost::asio::io_context main_context;
  boost::asio::signal_set signals(main_context, SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code&, int) { main_context.stop(); });

  auto http = http::HttpServer::start(config.http);
  if (!http) {
    std::cerr << "router: " << http.message() << "\n";
    return 2;
  }
  http::HttpServer& server = **http;
  const std::string http_address = format_host_port(config.http_host, server.endpoint().port());

  auto wamp = wamp::WampServer::start(config.wamp);
  if (!wamp) {
    std::cerr << "router: " << wamp.message() << "\n";
    server.stop();
    return 2;
  }
  wamp::WampServer& wamp_server = **wamp;
  const std::string ws_address =
      format_host_port(config.websocket_host, wamp_server.websocket_port());
  const std::string rawsocket_address =
      format_host_port(config.rawsocket_host, wamp_server.rawsocket_port());

  control::RouterFacts facts{
      "benchgate-router",
      command_line::version(),
      {{"http", http_address}, {"ws", ws_address}, {"rawsocket", rawsocket_address}},
      static_cast<uint32_t>(server.threads())};
  control::ControlService service(std::move(facts), server, [&] { main_context.stop(); });
  service.set_wamp(&wamp_server);
  auto control = control::ControlServer::start(config.control, service);
  if (!control) {
    std::cerr << "router: " << control.message() << "\n";
    wamp_server.stop();
    server.stop();
    return 2;
  }
  const std::string control_address =
      config.control_is_unix()
          ? config.control
          : format_host_port(config.control_host, static_cast<uint16_t>((*control)->port()));
  service.set_endpoint("control", control_address);

  // Optional /metrics for Prometheus; READY names it only when it is on.
  std::unique_ptr<prometheus_export::MetricsEndpoint> metrics;
  std::string metrics_field;
  if (!config.metrics.empty()) {
    auto endpoint =
        prometheus_export::MetricsEndpoint::start(config.metrics, [&server, &wamp_server] {
          metrics::Snapshot snapshot = server.snapshot();
          // The WAMP families (authentication) and the TLS counters of the WAMP listeners.
          wamp_server.add_metrics(snapshot);
          return snapshot;
        });
    if (!endpoint) {
      std::cerr << "router: " << endpoint.message() << "\n";
      (*control)->stop();
      wamp_server.stop();
      server.stop();
      return 2;
    }
    metrics = std::move(endpoint).value();
    metrics_field = " metrics=" + format_host_port(config.metrics_host, metrics->port());
  }

  std::cout << "READY http=" << http_address << " control=" << control_address
            << " ws=" << ws_address << " rawsocket=" << rawsocket_address << metrics_field
            << std::endl;
  std::cerr << "router: serving HTTP on " << http_address << " with " << server.threads()
            << " thread(s), WAMP on ws=" << ws_address << " rawsocket=" << rawsocket_address
            << ", control on " << control_address << "\n";

  main_context.run();

  std::cerr << "router: stopping\n";
  metrics.reset();  // no scrape may take a snapshot of a stopping server
  (*control)->stop();
  wamp_server.stop();
  server.stop();
  return 0;
}

}  // namespace benchgate::router::app
