// WAMP authentication keys (docs/SCENARIOS.md, "WAMP authentication"): a workload's `auth`
// with its secret read from secret_file against the scenario's folder, [router] auth_config,
// refusals at the key, and neither file read in a scenario submitted to a service.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "common/auth/auth_config.h"
#include "orchestrator/scenario/scenario_loader.h"
#include "scenario_test_support.h"

namespace benchgate::scenario {
namespace {

using test_support::diagnostics_text;

LoadResult load_at(std::string_view text, const std::string& path, bool submitted = false) {
  LoadOptions options = test_support::hermetic_options();
  options.submitted = submitted;
  return load_scenario_text(text, path, options);
}

class ScenarioWampAuth : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("scenario_wamp_auth_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_ / "auth");
    std::ofstream(dir_ / "auth" / "cra.secret") << "s3cret\n";
    std::ofstream(dir_ / "auth" / "router.toml") << "[[realm]]\nname = \"bench\"\n";
    std::ofstream(dir_ / "auth" / "short.key") << "abcd\n";
    path_ = (dir_ / "s.toml").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_;
  std::string path_;
};

constexpr const char* kAuthWorkload =
    "name = \"s\"\n[router]\nauth_config = \"auth/router.toml\"\n[[workloads]]\nname = \"w\"\n"
    "protocol = \"wamp_rpc\"\nrealm = \"bench\"\n";

TEST_F(ScenarioWampAuth, AuthAndAuthConfigAreReadAgainstTheScenarioFolder) {
  LoadResult r = load_at(std::string(kAuthWorkload) +
                             "auth = { method = \"wampcra\", authid = \"alice\", secret_file = "
                             "\"auth/cra.secret\" }\n",
                         path_);
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  EXPECT_EQ(r.scenario->router.auth_config, (dir_ / "auth" / "router.toml").string());
  const WampAuth& auth = r.scenario->workloads.at(0).wamp.auth;
  EXPECT_EQ(auth.method, "wampcra");
  EXPECT_EQ(auth.authid, "alice");
  EXPECT_EQ(auth.secret, "s3cret");  // the trailing newline is the editor's
  EXPECT_EQ(auth.secret_file, (dir_ / "auth" / "cra.secret").string());

  LoadResult scram = load_at(std::string(kAuthWorkload) +
                                 "auth = { method = \"scram\", authid = \"a\", secret_file = "
                                 "\"auth/cra.secret\" }\n",
                             path_);
  ASSERT_TRUE(scram.ok()) << diagnostics_text(scram);
  EXPECT_EQ(scram.scenario->workloads.at(0).wamp.auth.method, "wamp-scram");
}

TEST_F(ScenarioWampAuth, RefusalsPointAtTheKey) {
  struct Case {
    std::string auth;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"auth = { method = \"magic\", authid = \"a\", secret_file = \"auth/cra.secret\" }\n",
       "s.toml:8:19: error: key 'method' must be one of"},
      {"auth = { method = \"ticket\", authid = \"a\", secret_file = \"nope\" }\n",
       "s.toml:8:57: error: key 'secret_file': no such file 'nope'"},
      {"auth = { method = \"ticket\", authid = \"a\" }\n",
       "s.toml:8:8: error: missing required key 'secret_file'"},
      {"auth = { method = \"ticket\", authid = \"a\", secret_file = \"auth/cra.secret\", x = 1 "
       "}\n",
       "s.toml:8:76: error: unknown key 'x' in auth"},
      {"auth = { method = \"cryptosign\", authid = \"a\", secret_file = \"auth/short.key\" }\n",
       "s.toml:8:61: error: key 'secret_file': 'auth/short.key' must hold an Ed25519 private "
       "key as 64 hex digits"},
  };
  for (const Case& c : cases) {
    LoadResult r = load_at(std::string(kAuthWorkload) + c.auth, path_);
    EXPECT_FALSE(r.ok()) << c.auth;
    EXPECT_NE(diagnostics_text(r).find(c.expected), std::string::npos) << diagnostics_text(r);
  }
  LoadResult missing = load_at("name = \"s\"\n[router]\nauth_config = \"gone.toml\"\n", path_);
  EXPECT_NE(diagnostics_text(missing).find("s.toml:3:15: error: key 'auth_config': no such file"),
            std::string::npos)
      << diagnostics_text(missing);
  LoadResult external = load_at(
      "name = \"s\"\n[router]\nimpl = \"external\"\naddress = \"127.0.0.1:1\"\n"
      "auth_config = \"auth/router.toml\"\n",
      path_);
  EXPECT_NE(diagnostics_text(external).find("key 'auth_config' applies only to impl = \"builtin\""),
            std::string::npos)
      << diagnostics_text(external);
}

// The loader checks [router] auth_config without deriving its keys: an Argon2id of up to 4 GiB
// and 1000 passes, or a PBKDF2 of up to 10 million iterations, costs `validate` and each `run`
// nothing (the router derives them once, at its start). Its parameters' bounds are still
// checked. The principals here are costly only in part (64 MiB, 200,000 iterations), so that a
// loader that derives again fails the count, and does not take the machine.
TEST_F(ScenarioWampAuth, AnAuthConfigIsCheckedWithoutDerivingItsKeys) {
  const std::string kWorkload =
      "[[workloads]]\nname = \"w\"\nprotocol = \"wamp_rpc\"\nrealm = \"bench\"\n";
  std::ofstream(dir_ / "auth" / "costly.toml")
      << "[[realm]]\nname = \"bench\"\n[[realm.role]]\nname = \"caller\"\n"
         "[[realm.principal]]\nauthid = \"a\"\nrole = \"caller\"\nmethod = \"wamp-scram\"\n"
         "kdf = \"argon2id13\"\nsecret = \"s\"\nsalt = \"c2FsdA==\"\niterations = 4\n"
         "memory = 65536\n"
         "[[realm.principal]]\nauthid = \"b\"\nrole = \"caller\"\nmethod = \"wampcra\"\n"
         "secret = \"s\"\nsalt = \"pepper\"\niterations = 200000\n";
  const uint64_t before = benchgate::auth::auth_key_derivations();
  LoadResult r =
      load_at("name = \"s\"\n[router]\nauth_config = \"auth/costly.toml\"\n" + kWorkload, path_);
  EXPECT_TRUE(r.ok()) << diagnostics_text(r);
  EXPECT_EQ(benchgate::auth::auth_key_derivations(), before);

  std::ofstream(dir_ / "auth" / "too_much.toml")
      << "[[realm]]\nname = \"bench\"\n[[realm.role]]\nname = \"caller\"\n"
         "[[realm.principal]]\nauthid = \"a\"\nrole = \"caller\"\nmethod = \"wamp-scram\"\n"
         "kdf = \"argon2id13\"\nsecret = \"s\"\nsalt = \"c2FsdA==\"\nmemory = 4194305\n";
  LoadResult refused =
      load_at("name = \"s\"\n[router]\nauth_config = \"auth/too_much.toml\"\n" + kWorkload, path_);
  EXPECT_FALSE(refused.ok());
  EXPECT_NE(diagnostics_text(refused).find(":12:10: key 'memory' = 4194305 must be from 8 to "
                                           "4194304"),
            std::string::npos)
      << diagnostics_text(refused);
  EXPECT_EQ(benchgate::auth::auth_key_derivations(), before);
}

// The router parses --auth-config when it starts and exits 2 on a problem; the loader parses
// [router] auth_config with the same parser, so `validate` refuses what `run` would fail on,
// at the key and at each problem's place in the auth file.
TEST_F(ScenarioWampAuth, AnAuthConfigTheRouterWouldRefuseIsRefusedAtLoad) {
  std::ofstream(dir_ / "auth" / "bad.toml")
      << "[[realm]]\nname = \"bench\"\n[[realm.role]]\nname = \"caller\"\n"
         "permissions = [{ prefix = \"bench.\", allow = [\"call\"] }]\n"
         "[[realm.role]]\nname = \"admin\"\npermisions = [{ prefix = \"\", allow = [\"call\"] }]\n"
         "[[realm.principal]]\nauthid = \"a\"\nrole = \"caler\"\nmethod = \"ticket\"\n"
         "secret = \"s\"\n"
         "[[realm.principal]]\nauthid = \"b\"\nrole = \"caller\"\nmethod = \"tiket\"\n"
         "secret = \"s\"\n";
  const std::string auth = (dir_ / "auth" / "bad.toml").string();
  LoadResult r = load_at(
      "name = \"s\"\n[router]\nauth_config = \"auth/bad.toml\"\n[[workloads]]\nname = \"w\"\n"
      "protocol = \"wamp_rpc\"\nrealm = \"bench\"\n",
      path_);
  ASSERT_FALSE(r.ok());
  // One error at the key, listing the router's problems in the auth file's order.
  EXPECT_EQ(diagnostics_text(r),
            path_ +
                ":3:15: error: key 'auth_config': the bundled router would refuse this auth "
                "config:\n  " +
                auth +
                ":8:1: unknown key 'permisions' in a [[realm.role]] (did you mean "
                "'permissions'?)\n  " +
                auth +
                ":11:8: role = 'caler' names no [[realm.role]] of realm 'bench' (did you "
                "mean 'caller'?)\n  " +
                auth +
                ":17:10: method = 'tiket' is not one of ticket, wampcra, wamp-scram, "
                "cryptosign (did you mean 'ticket'?)\n");

  // A command router's configuration is its own: auth_config is refused there as before,
  // and its file is not parsed.
  LoadResult command = load_at(
      "name = \"s\"\n[router]\nimpl = \"command\"\ncommand = [\"x\"]\n"
      "auth_config = \"auth/bad.toml\"\n",
      path_);
  ASSERT_FALSE(command.ok());
  EXPECT_EQ(diagnostics_text(command).find("would refuse"), std::string::npos)
      << diagnostics_text(command);
}

TEST_F(ScenarioWampAuth, ASubmittedScenarioReadsNoFileOfTheService) {
  LoadResult r = load_at(std::string(kAuthWorkload) +
                             "auth = { method = \"ticket\", authid = \"a\", secret_file = "
                             "\"auth/cra.secret\" }\n",
                         path_, /*submitted=*/true);
  ASSERT_FALSE(r.ok());
  const std::string text = diagnostics_text(r);
  EXPECT_NE(text.find("key 'auth_config' is not allowed in a scenario submitted to a service"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("key 'secret_file' is not allowed in a scenario submitted to a service"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace benchgate::scenario
