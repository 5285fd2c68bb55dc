// A count the router keeps for its tests, exported nowhere: --http-io epoll edges reported
// while the connection's read was already posted, and so left to that read (Session::on_readable,
// router/http/session.cc). tests/alloc reads it to know that the order its test of that path
// exists for was made, not only that nothing allocated.
#pragma once

#include <cstdint>

namespace benchgate::router::http {

// Since the process started, every serving thread's together.
uint64_t edges_left_to_posted_reads();

}  // namespace benchgate::router::http
