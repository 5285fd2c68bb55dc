# benchgate_common's sources, relative to this folder. common/CMakeLists.txt builds the library
# from this list and fuzz/CMakeLists.txt compiles the same list with clang and the sanitizers
# (fuzz_common), so a file added here reaches both builds: a list kept apart in fuzz/ once
# missed baseline_name.cc, and only the fuzz targets' clang build (fuzz.build) failed to link.
set(BENCHGATE_COMMON_SOURCES
  histogram/hdr_histogram.cc
  histogram/hdr_encoding.cc
  units/units.cc
  util/shown_text.cc
  util/shown_list.cc
  util/suggest.cc
  util/toml_depth.cc
  util/regular_file.cc
  util/baseline_name.cc
  util/errno_text.cc
  process/process_stats.cc
  process/process_tree.cc
  process/fork_exec.cc
  security/token.cc
  util/size_class_pool.cc
  net/readiness_poller.cc
  net/completion_ring.cc
  net/connect_within.cc
  net/bind_trial.cc
  net/listen_failure.cc
  net/owner_only_socket.cc
  net/acked_bytes.cc
  net/host_port.cc
  wamp/serializers.cc
  wamp/rawsocket_frame.cc
  wamp/uri.cc)
