// ParseQuery: the parameters of a URL's query string ("a=1&b=x%20y"), for
// the HTTP endpoints of the bookie and of autorecovery.

#ifndef BK_COMMON_QUERY_STRING_H_
#define BK_COMMON_QUERY_STRING_H_

#include <map>
#include <string>

#include "absl/status/statusor.h"

namespace bk {

// Name -> value, %-decoded ('+' is a space). InvalidArgument for a
// malformed escape, a parameter without a name, or one given twice.
absl::StatusOr<std::map<std::string, std::string>> ParseQuery(
    const std::string& query);

}  // namespace bk

#endif  // BK_COMMON_QUERY_STRING_H_
