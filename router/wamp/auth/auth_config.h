// The router's --auth-config: realms, principals and roles (common/auth/auth_config.h, where
// the orchestrator's scenario check reads the same file with the same parser), by the names the
// router's WAMP code uses.
#pragma once

#include "common/auth/auth_config.h"

namespace benchgate::router::wamp::auth {

using benchgate::auth::Action;
using benchgate::auth::action_name;
using benchgate::auth::AuthConfig;
using benchgate::auth::kActions;
using benchgate::auth::load_auth_config;
using benchgate::auth::Method;
using benchgate::auth::parse_auth_config;
using benchgate::auth::Permission;
using benchgate::auth::Principal;
using benchgate::auth::RealmAuth;
using benchgate::auth::Role;

}  // namespace benchgate::router::wamp::auth
