// WAMP authentication in a scenario (docs/SCENARIOS.md, "WAMP authentication"): a WAMP
// workload's `auth = { method, authid, secret_file }`, whose secret the orchestrator reads at
// load (the worker gets the text, never a path), and [router] auth_config, the bundled
// router's --auth-config, which is checked here as the router parses it (common/auth/
// auth_config.h), so a file the router would refuse is refused at load, before anything starts.
// The check derives no key (check_auth_config): `validate` and each `run` do not pay the
// router's Argon2id or PBKDF2 cost.
// Both name files of the machine the scenario is loaded on, so a scenario submitted to
// `orchestrator serve` may use neither.
#include "common/auth/auth_config.h"
#include "common/util/shown_text.h"
#include "orchestrator/scenario/interpolation.h"
#include "orchestrator/scenario/named_file.h"
#include "orchestrator/scenario/sections.h"

namespace benchgate::scenario {

void read_wamp_auth(TableReader& workload, WampRequest& wamp) {
  if (!workload.has("auth")) return;
  Diagnostics& diag = workload.diagnostics();
  const toml::table* table = workload.table("auth");
  if (table == nullptr) return;  // table() reported the wrong type
  TableReader r(*table, "in auth", diag, workload.interpolator());
  r.check_keys({"method", "authid", "secret_file"}, {});
  WampAuth& auth = wamp.auth;
  if (r.require("method")) {
    if (auto v = r.choice("method", {"ticket", "wampcra", "scram", "wamp-scram", "cryptosign"})) {
      auth.method = *v == "scram" ? "wamp-scram" : *v;
    }
  }
  if (r.require("authid")) {
    if (auto v = r.string("authid")) {
      if (v->empty()) diag.error(r.value_location("authid"), "key 'authid' must not be empty");
      auth.authid = std::move(*v);
    }
  }
  if (!r.require("secret_file")) return;
  auto path = r.string("secret_file");
  if (!path) return;
  if (r.interpolator().submitted()) {
    diag.error(r.key_location("secret_file"),
               "key 'secret_file' is not allowed in a scenario submitted to a service: it would "
               "read a file of the service's machine");
    return;
  }
  auto text = read_named_file(r, "secret_file", *path, auth.secret_file);
  if (!text) return;
  // A trailing newline is the editor's, not the secret's.
  while (!text->empty() && (text->back() == '\n' || text->back() == '\r')) text->pop_back();
  if (text->empty()) {
    diag.error(r.value_location("secret_file"),
               "key 'secret_file': '" + shown_text(*path) + "' is empty (it holds the secret)");
  }
  if (auth.method == "cryptosign") {
    bool hex = text->size() == 64;
    for (const char c : *text) hex = hex && std::isxdigit(static_cast<unsigned char>(c));
    if (!hex) {
      diag.error(r.value_location("secret_file"),
                 "key 'secret_file': '" + shown_text(*path) +

                     "' must hold an Ed25519 private key as 64 hex digits for method = "
                     "\"cryptosign\"");
    }
  }
  auth.secret = std::move(*text);
}

void read_router_auth_config(TableReader& r, RouterConfig& router, bool builtin) {
  if (!r.has("auth_config")) return;
  Diagnostics& diag = r.diagnostics();
  if (!builtin) {
    diag.error(r.key_location("auth_config"),
               "key 'auth_config' applies only to impl = \"builtin\" (it is the bundled "
               "router's --auth-config)");
    return;
  }
  auto path = r.string("auth_config");
  if (!path) return;
  if (r.interpolator().submitted()) {
    diag.error(r.key_location("auth_config"),
               "key 'auth_config' is not allowed in a scenario submitted to a service: it would "
               "read a file of the service's machine");
    return;
  }
  std::string resolved;
  auto text = read_named_file(r, "auth_config", *path, resolved);
  if (!text) return;
  router.auth_config = resolved;
  // The router's own parser, deriving no key: what it would exit with, at the key's value, then
  // each problem at its place in the auth file (the parser's "PATH:LINE:COLUMN: error: ...", one
  // a line, in file order), indented under it.
  auto parsed = benchgate::auth::check_auth_config(*text, resolved);
  if (parsed) return;
  const std::string& problems = parsed.message();
  std::string listed;
  for (size_t start = 0; start < problems.size();) {
    size_t end = problems.find('\n', start);
    if (end == std::string::npos) end = problems.size();
    std::string problem = problems.substr(start, end - start);
    start = end + 1;
    if (problem.empty()) continue;
    const size_t said = problem.find(": error: ");
    if (said != std::string::npos) problem.erase(said + 2, 7);  // the line above says "error:"
    listed += "\n  " + problem;
  }
  diag.error(r.value_location("auth_config"),
             "key 'auth_config': the bundled router would refuse this auth config:" + listed);
}

}  // namespace benchgate::scenario
