// Loading and checking --auth-config (see auth_config.h).
#include "common/auth/auth_config.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <set>
#include <tuple>
#include <vector>

#include <toml++/toml.h>

#include "common/util/errno_text.h"
#include "common/util/regular_file.h"
#include "common/util/suggest.h"
#include "common/util/toml_depth.h"
#include "common/wamp/uri.h"

namespace benchgate::auth {
namespace bauth = benchgate::auth;

std::string_view action_name(Action action) {
  switch (action) {
    case Action::call:
      return "call";
    case Action::register_procedure:
      return "register";
    case Action::publish:
      return "publish";
    case Action::subscribe:
      return "subscribe";
  }
  return "?";
}

bool Role::allows(Action action, std::string_view uri) const {
  const Permission* best = nullptr;
  for (const Permission& permission : permissions) {
    if (!uri.starts_with(permission.prefix)) continue;
    if (best == nullptr || permission.prefix.size() > best->prefix.size()) best = &permission;
  }
  return best != nullptr && best->allow[static_cast<size_t>(action)];
}

const Role* RealmAuth::role(std::string_view wanted) const {
  for (const auto& r : roles) {
    if (r->name == wanted) return r.get();
  }
  return nullptr;
}

uint8_t RealmAuth::methods_of(std::string_view authid) const {
  uint8_t bits = 0;
  for (const Principal& p : principals) {
    if (p.authid == authid) bits |= static_cast<uint8_t>(1u << static_cast<unsigned>(p.method));
  }
  return bits;
}

const Principal* RealmAuth::find(Method method, std::string_view authid) const {
  for (const Principal& p : principals) {
    if (p.method == method && p.authid == authid) return &p;
  }
  return nullptr;
}

const Principal* RealmAuth::find_pubkey(std::span<const uint8_t> pubkey) const {
  for (const Principal& p : principals) {
    if (p.method == Method::cryptosign &&
        std::equal(p.pubkey.begin(), p.pubkey.end(), pubkey.begin(), pubkey.end())) {
      return &p;
    }
  }
  return nullptr;
}

const RealmAuth* AuthConfig::realm(std::string_view name) const {
  for (const auto& r : realms) {
    if (r->name == name) return r.get();
  }
  return nullptr;
}

namespace {

// As many problems as the scenario loader lists (orchestrator/scenario/diagnostics.h): a file
// with more is listed up to there, with a line saying so.
constexpr size_t kMaxListed = 100;

// Thrown by Reader::fail once the problem is recorded: it abandons the part being read (a
// realm's name, a role, a permission, a principal), whose later checks would only follow from
// it, and the reader goes on with the next part. Never leaves this file.
struct Abandon {};

std::atomic<uint64_t> derivations{0};

std::string located(const std::string& path, const toml::source_position& at,
                    const std::string& text) {
  return path + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) +
         ": error: " + text;
}

// A problem where it was found, to list the problems in file order.
struct Problem {
  toml::source_position at;
  std::string text;
};

// The roles of a realm that were refused: a principal naming one is not told that the realm
// has no such role. `unnamed`: one without a readable name, which any role a principal names
// may have been.
struct RefusedRoles {
  std::set<std::string, std::less<>> names;
  bool unnamed = false;
  bool covers(std::string_view name) const { return unnamed || names.count(name) != 0; }
};

class Reader {
 public:
  // `derive`: whether the keys are derived (parse_auth_config) or their parameters only
  // checked (check_auth_config).
  Reader(const std::string& path, bool derive) : path_(path), derive_(derive) {}

  // Records FILE:LINE:COLUMN: error: TEXT, as the scenario loader writes its problems, and
  // abandons the part being read.
  [[noreturn]] void fail(const toml::source_region& region, const std::string& text) const {
    record(region, text);
    throw Abandon{};
  }
  [[noreturn]] void fail(const toml::node& node, const std::string& text) const {
    fail(node.source(), text);
  }

  void record(const toml::source_region& region, const std::string& text) const {
    problems_.push_back(Problem{region.begin, text});
  }

  // Runs `read`, one part of the file; whether it found no problem.
  template <typename Read>
  bool attempt(Read&& read) const {
    try {
      read();
      return true;
    } catch (const Abandon&) {
      return false;
    }
  }

  // Every problem found, in file order, at most kMaxListed of them (then a line saying so),
  // one a line; empty when there was none.
  std::string problems() const {
    std::vector<Problem> sorted = problems_;
    std::stable_sort(sorted.begin(), sorted.end(), [](const Problem& a, const Problem& b) {
      return std::tie(a.at.line, a.at.column) < std::tie(b.at.line, b.at.column);
    });
    std::string out;
    for (size_t i = 0; i < sorted.size() && i < kMaxListed; ++i) {
      out += (out.empty() ? "" : "\n") + located(path_, sorted[i].at, sorted[i].text);
    }
    if (sorted.size() > kMaxListed) {
      out += "\n" + path_ + ": error: more than " + std::to_string(kMaxListed) +
             " problems; the first " + std::to_string(kMaxListed) + " in the file are listed";
    }
    return out;
  }

  // Refuses keys outside `known` (a typo would otherwise weaken a rule silently), each at the
  // key, told the nearest known key; with one, the part is abandoned after them all (a
  // misspelt key is not then reported again as missing).
  void only_keys(const toml::table& table, std::initializer_list<std::string_view> known,
                 const std::string& what) const {
    bool unknown = false;
    for (const auto& [key, value] : table) {
      if (std::find(known.begin(), known.end(), key.str()) == known.end()) {
        record(key.source(), "unknown key '" + std::string(key.str()) + "' in " + what +
                                 did_you_mean(key.str(), std::vector<std::string_view>(known)));
        unknown = true;
      }
    }
    if (unknown) throw Abandon{};
  }

  std::string string(const toml::table& table, std::string_view key, const std::string& what,
                     bool required) const {
    const toml::node* node = table.get(key);
    if (node == nullptr) {
      if (required) fail(table, what + " needs the key '" + std::string(key) + "'");
      return {};
    }
    const auto* value = node->as_string();
    if (value == nullptr) fail(*node, "key '" + std::string(key) + "' must be a string");
    return value->get();
  }

  uint32_t integer(const toml::table& table, std::string_view key, uint32_t fallback, int64_t min,
                   int64_t max) const {
    const toml::node* node = table.get(key);
    if (node == nullptr) return fallback;
    const auto* value = node->as_integer();
    if (value == nullptr) fail(*node, "key '" + std::string(key) + "' must be an integer");
    if (value->get() < min || value->get() > max) {
      fail(*node, "key '" + std::string(key) + "' = " + std::to_string(value->get()) +
                      " must be from " + std::to_string(min) + " to " + std::to_string(max));
    }
    return static_cast<uint32_t>(value->get());
  }

  const toml::array* array_of_tables(const toml::table& table, std::string_view key) const {
    const toml::node* node = table.get(key);
    if (node == nullptr) return nullptr;
    const auto* array = node->as_array();
    if (array == nullptr || !array->is_array_of_tables()) {
      fail(*node, "key '" + std::string(key) + "' must be an array of tables ([[...]])");
    }
    return array;
  }

  // A role; a problem in one of its permissions is recorded and the others are read.
  Role read_role(const toml::table& table) const {
    only_keys(table, {"name", "permissions"}, "a [[realm.role]]");
    Role role;
    role.name = string(table, "name", "a [[realm.role]]", true);
    const toml::node* node = table.get("permissions");
    if (node == nullptr) return role;  // a role without permissions may do nothing
    const auto* list = node->as_array();
    if (list == nullptr) fail(*node, "key 'permissions' must be an array of inline tables");
    for (const toml::node& item : *list) {
      attempt([&] { role.permissions.push_back(read_permission(item)); });
    }
    return role;
  }

  Permission read_permission(const toml::node& item) const {
    const auto* entry = item.as_table();
    if (entry == nullptr) fail(item, "each permission must be a table { prefix, allow }");
    only_keys(*entry, {"prefix", "allow"}, "a permission");
    Permission permission;
    permission.prefix = string(*entry, "prefix", "a permission", true);
    const toml::node* allow = entry->get("allow");
    if (allow == nullptr) fail(*entry, "a permission needs the key 'allow'");
    const auto* actions = allow->as_array();
    if (actions == nullptr) fail(*allow, "key 'allow' must be an array of strings");
    for (const toml::node& action : *actions) {
      const auto* name = action.as_string();
      if (name == nullptr) fail(action, "key 'allow' must be an array of strings");
      bool known = false;
      for (int a = 0; a < kActions; ++a) {
        if (name->get() == action_name(static_cast<Action>(a))) {
          permission.allow[static_cast<size_t>(a)] = true;
          known = true;
        }
      }
      if (!known) {
        fail(action, "allow value '" + name->get() +
                         "' is not one of call, register, publish, subscribe" +
                         did_you_mean(name->get(), {"call", "register", "publish", "subscribe"}));
      }
    }
    return permission;
  }

  Principal read_principal(const toml::table& table, const RealmAuth& realm,
                           const RefusedRoles& refused) const {
    only_keys(table,
              {"authid", "role", "method", "secret", "salt", "iterations", "keylen", "kdf",
               "memory", "pubkey"},
              "a [[realm.principal]]");
    const std::string what = "a [[realm.principal]]";
    Principal p;
    p.authid = string(table, "authid", what, true);
    if (p.authid.empty()) fail(*table.get("authid"), "key 'authid' must not be empty");
    const std::string role = string(table, "role", what, true);
    p.role = realm.role(role);
    // A role refused above is not reported again where a principal names it.
    if (p.role == nullptr && !refused.covers(role)) {
      std::vector<std::string_view> roles;
      for (const auto& r : realm.roles) roles.push_back(r->name);
      fail(*table.get("role"), "role = '" + role + "' names no [[realm.role]] of realm '" +
                                   realm.name + "'" + did_you_mean(role, roles));
    }
    const std::string method = string(table, "method", what, true);
    const auto parsed = bauth::method_from_name(method);
    if (!parsed) {
      fail(*table.get("method"),
           "method = '" + method + "' is not one of ticket, wampcra, wamp-scram, cryptosign" +
               did_you_mean(method, {"ticket", "wampcra", "wamp-scram", "cryptosign"}));
    }
    p.method = *parsed;
    const auto needs = [&](std::string_view key) {
      if (!table.contains(key)) {
        fail(table,
             "a principal with method = '" + method + "' needs the key '" + std::string(key) + "'");
      }
    };
    const auto refuses = [&](std::initializer_list<std::string_view> keys) {
      for (const auto key : keys) {
        if (table.contains(key)) {
          fail(*table.get(key),
               "key '" + std::string(key) + "' does not apply to method = '" + method + "'");
        }
      }
    };
    switch (p.method) {
      case Method::ticket:
        needs("secret");
        refuses({"salt", "iterations", "keylen", "kdf", "memory", "pubkey"});
        p.ticket = string(table, "secret", what, true);
        break;
      case Method::wampcra: {
        needs("secret");
        refuses({"kdf", "memory", "pubkey"});
        const std::string secret = string(table, "secret", what, true);
        p.cra_salted = table.contains("salt");
        if (!p.cra_salted && (table.contains("iterations") || table.contains("keylen"))) {
          fail(table, "keys 'iterations' and 'keylen' need 'salt' (a salted WAMP-CRA secret)");
        }
        if (p.cra_salted) {
          p.cra_salt = string(table, "salt", what, true);
          p.cra_iterations = integer(table, "iterations", 1000, 1, 10'000'000);
          p.cra_keylen = integer(table, "keylen", 32, 1, 1024);
          if (derive_) {
            derivations.fetch_add(1, std::memory_order_relaxed);
            p.cra_key = bauth::cra_derive_key(secret, p.cra_salt, p.cra_iterations, p.cra_keylen);
          }
        } else {
          p.cra_key = secret;
        }
        break;
      }
      case Method::scram: {
        needs("secret");
        needs("salt");
        refuses({"keylen", "pubkey"});
        const std::string secret = string(table, "secret", what, true);
        const std::string kdf = string(table, "kdf", what, false);
        if (!kdf.empty()) {
          const auto parsed_kdf = bauth::kdf_from_name(kdf);
          if (!parsed_kdf) {
            fail(*table.get("kdf"), "kdf = '" + kdf + "' is not pbkdf2 or argon2id13" +
                                        did_you_mean(kdf, {"pbkdf2", "argon2id13"}));
          }
          p.scram.kdf = *parsed_kdf;
        }
        p.scram.salt = string(table, "salt", what, true);
        if (!bauth::from_base64(p.scram.salt)) {
          fail(*table.get("salt"), "salt = '" + p.scram.salt + "' is not base64 (WAMP-SCRAM)");
        }
        if (p.scram.kdf == bauth::Kdf::argon2id) {
          p.scram.iterations = integer(table, "iterations", 3, 1, 1000);
          p.scram.memory_kib = integer(table, "memory", 4096, 8, 4 * 1024 * 1024);
        } else {
          if (table.contains("memory")) {
            fail(*table.get("memory"), "key 'memory' applies to kdf = 'argon2id13' only");
          }
          p.scram.iterations = integer(table, "iterations", 4096, 1, 10'000'000);
        }
        if (!derive_) break;
        derivations.fetch_add(1, std::memory_order_relaxed);
        const auto spec = bauth::scram_salted_password(secret, p.scram, bauth::ScramDialect::spec);
        const auto autobahn =
            bauth::scram_salted_password(secret, p.scram, bauth::ScramDialect::autobahn);
        if (!spec || !autobahn) fail(table, "the WAMP-SCRAM key derivation failed");
        p.scram_spec = bauth::scram_keys(*spec);
        p.scram_autobahn = bauth::scram_keys(*autobahn);
        break;
      }
      case Method::cryptosign: {
        needs("pubkey");
        refuses({"secret", "salt", "iterations", "keylen", "kdf", "memory"});
        const std::string hex = string(table, "pubkey", what, true);
        const auto key = bauth::from_hex(hex);
        if (!key || key->size() != 32) {
          fail(*table.get("pubkey"),
               "pubkey = '" + hex + "' must be an Ed25519 public key as 64 hex digits");
        }
        std::copy(key->begin(), key->end(), p.pubkey.begin());
        break;
      }
    }
    if (realm.find(p.method, p.authid) != nullptr) {
      fail(table, "authid '" + p.authid + "' with method '" + method +
                      "' is already a principal of realm '" + realm.name + "'");
    }
    return p;
  }

  // The config, or nothing when a problem was found (problems() lists them). Each part is read
  // on its own, so that every independent problem is found in one load: the realms, each
  // realm's name, roles, permissions and principals.
  std::shared_ptr<const AuthConfig> read(const toml::table& root) const {
    // An unknown key at the top is no reason not to read the realms.
    attempt(
        [&] { only_keys(root, {"realm"}, "the auth config, which takes only [[realm]] tables"); });
    auto config = std::make_shared<AuthConfig>();
    config->path = path_;
    const toml::array* realms = nullptr;
    if (!attempt([&] { realms = array_of_tables(root, "realm"); })) return nullptr;
    if (realms == nullptr || realms->empty()) {
      // Not when the top has an unknown key, reported above: most likely a misspelt 'realm'.
      if (problems_.empty()) {
        record(toml::source_region{{1, 1}, {1, 1}, nullptr},
               "the auth config defines no [[realm]]");
      }
      return nullptr;
    }
    for (const toml::node& node : *realms) {
      const toml::table& table = *node.as_table();
      auto realm = std::make_unique<RealmAuth>();
      const bool keys_known = attempt([&] {
        only_keys(table, {"name", "role", "principal"}, "a [[realm]]");
      });
      // A realm whose name cannot be read is not read further: its roles' and principals'
      // problems name the realm. A misspelt 'name' is reported once, as an unknown key.
      if (!keys_known && !table.contains("name")) continue;
      if (!attempt([&] { realm->name = string(table, "name", "a [[realm]]", true); })) continue;
      attempt([&] {
        if (!wamp::is_valid_uri(realm->name)) {
          fail(*table.get("name"), "name = '" + realm->name + "' is not a valid realm URI");
        }
        if (config->realm(realm->name) != nullptr) {
          fail(*table.get("name"), "realm '" + realm->name + "' is defined twice");
        }
      });
      RefusedRoles refused;
      const toml::array* roles = nullptr;
      attempt([&] { roles = array_of_tables(table, "role"); });
      if (roles != nullptr) {
        for (const toml::node& role_node : *roles) {
          const toml::table& role_table = *role_node.as_table();
          const bool read = attempt([&] {
            Role role = read_role(role_table);
            if (realm->role(role.name) != nullptr) {
              fail(role_node,
                   "role '" + role.name + "' is defined twice in realm '" + realm->name + "'");
            }
            realm->roles.push_back(std::make_unique<Role>(std::move(role)));
          });
          if (read) continue;
          const auto* name = role_table.get_as<std::string>("name");
          if (name != nullptr) {
            refused.names.insert(name->get());
          } else {
            refused.unnamed = true;
          }
        }
      }
      const toml::array* principals = nullptr;
      attempt([&] { principals = array_of_tables(table, "principal"); });
      if (principals != nullptr) {
        for (const toml::node& principal : *principals) {
          attempt([&] {
            realm->principals.push_back(read_principal(*principal.as_table(), *realm, refused));
          });
        }
      }
      for (size_t i = 0; i < realm->principals.size(); ++i) {
        const std::string& authid = realm->principals[i].authid;
        const bool first = std::none_of(
            realm->principals.begin(), realm->principals.begin() + static_cast<std::ptrdiff_t>(i),
            [&](const Principal& earlier) { return earlier.authid == authid; });
        if (first) realm->authids.push_back(authid);
      }
      config->realms.push_back(std::move(realm));
    }
    if (!problems_.empty()) return nullptr;
    return config;
  }

 private:
  const std::string& path_;
  const bool derive_;
  mutable std::vector<Problem> problems_;
};

}  // namespace

namespace {

// The config `text` describes, its keys derived or not (Reader), or the problems.
Expected<std::shared_ptr<const AuthConfig>> read_auth_config(std::string_view text,
                                                             const std::string& path, bool derive) {
  toml::table root;
  // A key of tens of thousands of dotted parts overflows the stack inside toml++: refused first.
  if (auto deep = toml_depth_problem(text)) {
    return Error{path + ":" + std::to_string(deep->line) + ":" + std::to_string(deep->column) +
                 ": error: " + deep->message};
  }
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    return Error{
        located(path, e.source().begin, "TOML syntax error: " + std::string(e.description()))};
  }
  const Reader reader(path, derive);
  auto config = reader.read(root);
  if (!config) return Error{reader.problems()};
  return config;
}

}  // namespace

Expected<std::shared_ptr<const AuthConfig>> parse_auth_config(std::string_view text,
                                                              const std::string& path) {
  auto config = read_auth_config(text, path, true);
  if (!config) return config;
  std::const_pointer_cast<AuthConfig>(*config)->mock_key = bauth::sha256(bauth::as_bytes(text));
  return config;
}

Expected<void> check_auth_config(std::string_view text, const std::string& path) {
  auto config = read_auth_config(text, path, false);
  if (!config) return config.error();
  return {};
}

Expected<std::shared_ptr<const AuthConfig>> load_auth_config(const std::string& path) {
  // Read as a file a user names is read (common/util/regular_file.h): a folder is refused as a
  // folder, not read as an empty file ("defines no [[realm]]"), and a FIFO is not waited on.
  auto text = read_regular_file(path, "", kMaxAuthConfigBytes);
  if (!text) {
    // The refusals say "is a folder, not a regular file"; a system error is its reason.
    const bool refused = text.error().kind == ErrorKind::kInvalidInput;
    return Error{path + ": cannot read the auth config (" + (refused ? "it " : "") +
                     lowercase_first(text.message()) + ")",
                 text.error().kind};
  }
  return parse_auth_config(*text, path);
}

uint64_t auth_key_derivations() { return derivations.load(std::memory_order_relaxed); }

}  // namespace benchgate::auth
