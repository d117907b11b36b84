// AuditorElection: one auditor per cluster, elected through the metadata
// store as BookKeeper elects its auditor: every candidate creates an
// ephemeral sequential node
//
//   <root>/underreplication/auditorelection/V_<10-digit counter>
//
// holding its id; the candidate with the lowest node is the auditor. When
// the auditor's session ends (its process died, or its session expired) its
// node vanishes and the next candidate is the auditor, within one session
// timeout. A candidate whose own node vanished (its session expired)
// volunteers again with a new node, behind the others.
//
// Thread-safe. Blocking. REQUIRES: the store outlives the election.

#ifndef BK_AUTORECOVERY_AUDITOR_ELECTION_H_
#define BK_AUTORECOVERY_AUDITOR_ELECTION_H_

#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "metadata/metadata_store.h"

namespace bk::autorecovery {

inline constexpr char kElectionDir[] = "underreplication/auditorelection";

// The id of the current auditor; "" when there is none.
absl::StatusOr<std::string> CurrentAuditor(metadata::MetadataStore* store);

class AuditorElection {
 public:
  AuditorElection(metadata::MetadataStore* store, std::string id)
      : store_(store), id_(std::move(id)) {}
  ~AuditorElection();  // withdraws

  const std::string& id() const { return id_; }

  // Makes sure this candidate has a live node (creates one when it has
  // none or its node vanished), then says whether it is the auditor.
  absl::StatusOr<bool> Run();
  // Removes this candidate's node.
  void Withdraw();

 private:
  metadata::MetadataStore* const store_;
  const std::string id_;
  absl::Mutex mu_;
  std::string node_ ABSL_GUARDED_BY(mu_);  // our node's path, "" if none
};

}  // namespace bk::autorecovery

#endif  // BK_AUTORECOVERY_AUDITOR_ELECTION_H_
