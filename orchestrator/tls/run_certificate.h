// The certificate a run gives the bundled router under [router] tls = true: a throwaway CA
// (EC P-256, a day's validity, made afresh for every run) and a server certificate it signs for
// 127.0.0.1 and localhost (IP and DNS subject alternative names, serverAuth), made with
// OpenSSL's C API. The CA's private key never leaves memory; the workers get the CA's PEM
// text as their ca_file, so they verify the router by default.
#pragma once

#include <string>

#include "common/util/expected.h"

namespace benchgate::tls {

struct RunCertificate {
  std::string cert_file;  // the server certificate, PEM
  std::string key_file;   // its private key, PEM, mode 0600
  std::string ca_pem;     // the CA certificate's PEM text
};

// Writes router-cert.pem and router-key.pem into `dir` (which must exist).
Expected<RunCertificate> make_run_certificate(const std::string& dir);

}  // namespace benchgate::tls
