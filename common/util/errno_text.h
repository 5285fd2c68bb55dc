// A system error as benchgate's messages write a reason: lower case first, since it follows
// words of ours ("cannot write 'out.json' (no such file or directory)"). The report files, the
// listen probe and the readiness probe name errors so; one definition, so they stay alike.
#pragma once

#include <string>

namespace benchgate {

// `text` with its first character lower-cased (ASCII): "Address already in use" is
// "address already in use". The rest is left as it is ("Name or service not known" keeps its
// words); empty stays empty.
std::string lowercase_first(std::string text);

// strerror(error), lower case first: "no such file or directory" for ENOENT.
std::string errno_text(int error);

}  // namespace benchgate
