#include "bookie/systemd_notify.h"

#include <systemd/sd-daemon.h>

#include "absl/strings/str_cat.h"

namespace bk::bookie {
namespace {

void Notify(const std::string& state) {
  // 0: NOTIFY_SOCKET stays set so child processes could notify too (none do).
  sd_notify(0, state.c_str());
}

}  // namespace

void NotifyReady(const std::string& status) {
  Notify(absl::StrCat("READY=1\nSTATUS=", status));
}

void NotifyStopping(const std::string& status) {
  Notify(absl::StrCat("STOPPING=1\nSTATUS=", status));
}

void NotifyStatus(const std::string& status) {
  Notify(absl::StrCat("STATUS=", status));
}

}  // namespace bk::bookie
