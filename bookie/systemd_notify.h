// Tells systemd (Type=notify units) where the bookie is in its life:
// READY=1 once the journal is replayed and the bookie is registered,
// STOPPING=1 when a graceful shutdown begins, STATUS= lines for operators.
// Outside systemd (no NOTIFY_SOCKET) every call does nothing.

#ifndef BK_BOOKIE_SYSTEMD_NOTIFY_H_
#define BK_BOOKIE_SYSTEMD_NOTIFY_H_

#include <string>

namespace bk::bookie {

void NotifyReady(const std::string& status);
void NotifyStopping(const std::string& status);
void NotifyStatus(const std::string& status);

}  // namespace bk::bookie

#endif  // BK_BOOKIE_SYSTEMD_NOTIFY_H_
