// "Did you mean" suggestions for the scenario loader: the project's one helper
// (common/util/suggest.h), named in the loader's namespace.
#pragma once

#include "common/util/suggest.h"

namespace benchgate::scenario {

using benchgate::closest_match;
using benchgate::did_you_mean;
using benchgate::edit_distance;
using benchgate::nearest_matches;

}  // namespace benchgate::scenario
