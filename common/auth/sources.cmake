# benchgate_auth's sources, relative to this folder: the library's own build and the fuzz build
# (fuzz/CMakeLists.txt, fuzz_auth) read this one list.
set(BENCHGATE_AUTH_SOURCES
  crypto.cc
  wamp_methods.cc)
