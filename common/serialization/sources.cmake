# benchgate_serialization's sources, relative to this folder: the library's own build and the
# fuzz build (fuzz/CMakeLists.txt, fuzz_serialization) read this one list.
set(BENCHGATE_SERIALIZATION_SOURCES
  base64.cc
  json_decoder.cc
  json_writer.cc
  message_writer.cc
  value_view.cc
  msgpack_decoder.cc
  cbor_decoder.cc)
