// Where each record lives, as paths under the store's root. The ZooKeeper
// backend uses these paths as znodes; the in-process backend keeps the same
// names so that both describe one layout.
//
//   <root>/INSTANCEID                   cluster instance id (UTF-8 text)
//   <root>/idgen                        ledger id counter: the next free id
//                                       (decimal text), advanced by CAS
//   <root>/ledgers/AAA/BBBB/CCCC/DDDD/LEEEE
//                                       ledger metadata; the 19-digit
//                                       zero-padded id split 3/4/4/4/4 (as
//                                       BookKeeper's LongHierarchical
//                                       layout), so no znode has more than
//                                       10,000 children
//   <root>/available/<bookie id>        writable bookie (ephemeral)
//   <root>/available/readonly/<bookie id>
//                                       read-only bookie (ephemeral)
//   <root>/cookies/<bookie id>          bookie cookie (persistent)
//   <root>/bookiegroups/<bookie id>     the bookie's isolation groups
//                                       (persistent, set by operators)
//   <root>/underreplication/...         coordination nodes (CreateNode and
//                                       friends): autorecovery's marks,
//                                       locks and auditor election
//   <root>/placements/...               coordination nodes too: new-ledger
//                                       announcements of clients that share
//                                       their placements (ephemeral
//                                       sequential, short-lived)

#ifndef BK_METADATA_LAYOUT_H_
#define BK_METADATA_LAYOUT_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "metadata/metadata_store.h"

namespace bk::metadata {

// Path components of a ledger id below <root>/ledgers: four directory names
// and the leaf ("L" + 4 digits). REQUIRES: id >= 0.
std::vector<std::string> LedgerPathParts(LedgerId id);

// Number of directory levels below <root>/ledgers before the leaves.
inline constexpr int kLedgerDirLevels = 4;
// Width of a directory name at `level` (0-based): 3, then 4.
int LedgerDirWidth(int level);
// True if `name` is a directory name at `level`.
bool IsLedgerDirName(int level, const std::string& name);
// Parses a ledger id from its four directory names and its leaf name.
std::optional<LedgerId> ParseLedgerId(const std::vector<std::string>& dirs,
                                      const std::string& leaf);

class Layout {
 public:
  explicit Layout(std::string root) : root_(std::move(root)) {}
  const std::string& root() const { return root_; }
  std::string InstanceId() const { return root_ + "/INSTANCEID"; }
  std::string IdGen() const { return root_ + "/idgen"; }
  std::string Ledgers() const { return root_ + "/ledgers"; }
  std::string Ledger(LedgerId id) const;
  std::string Available() const { return root_ + "/available"; }
  std::string Readonly() const { return root_ + "/available/readonly"; }
  std::string Bookie(const std::string& id, bool read_only) const {
    return (read_only ? Readonly() : Available()) + "/" + id;
  }
  std::string Cookies() const { return root_ + "/cookies"; }
  std::string Cookie(const std::string& id) const {
    return Cookies() + "/" + id;
  }
  std::string BookieGroupsDir() const { return root_ + "/bookiegroups"; }
  std::string BookieGroups(const std::string& id) const {
    return BookieGroupsDir() + "/" + id;
  }
  // The child name of Available() that is not a bookie.
  static constexpr const char* kReadonlyDir = "readonly";

 private:
  std::string root_;
};

// The first component of a coordination node's path is one of these two.
// <root>/underreplication/...  autorecovery's under-replication marks, ledger
// locks and auditor election (autorecovery/underreplication.h).
inline constexpr char kCoordinationDir[] = "underreplication";
// <root>/placements/...  new-ledger announcements of clients that share
// their placements (client/internal/placement_feed.h): ephemeral sequential
// nodes, each deleted by its creator after a few seconds.
inline constexpr char kPlacementsDir[] = "placements";
// True for a coordination node's path (metadata_store.h, CreateNode): under
// one of the two directories above, components non-empty, no "." or "..".
// Cheap, allocates nothing: fit for a ZooKeeper thread.
bool IsNodePath(absl::string_view path);
// IsNodePath, or kInvalidArgument naming the path.
absl::Status ValidateNodePath(const std::string& path);
// The parent of a valid node path ("" for a top directory, "underreplication"
// or "placements").
std::string ParentPath(const std::string& path);

// Bookie ids become znode names: non-empty, no '/', not "readonly".
absl::Status ValidateBookieId(const std::string& id);

// A fresh random instance id, UUID-shaped (8-4-4-4-12 hex digits).
std::string MakeInstanceId();

}  // namespace bk::metadata

#endif  // BK_METADATA_LAYOUT_H_
